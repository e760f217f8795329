/* "Another compiler embeds one Tessel pass": create a context, register only
 * tessel-export-c-interface through the generated C API, run it on a module
 * and check what it did. Prints lines that test/capi/embed_one_pass.test
 * checks. */
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "tessel-c/Passes.h"
#include "tessel-c/Tessel.h"

#include <stdio.h>
#include <string.h>

static const char *kModule =
    "module {\n"
    "  func.func @exported(%a: memref<4xf32>) { return }\n"
    "  func.func private @internal(%a: memref<4xf32>) { return }\n"
    "}\n";

static void printToFile(MlirStringRef chunk, void *userData) {
  fwrite(chunk.data, 1, chunk.length, (FILE *)userData);
}

static int hasCInterface(MlirModule module, const char *name) {
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  for (; !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef symName = mlirStringAttrGetValue(sym);
    if (symName.length == strlen(name) &&
        strncmp(symName.data, name, symName.length) == 0)
      return !mlirAttributeIsNull(mlirOperationGetAttributeByName(
          op, mlirStringRefCreateFromCString("llvm.emit_c_interface")));
  }
  return -1;
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__func__(), ctx);

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "FAIL: module did not parse\n");
    return 1;
  }

  /* Direct construction: no registry involved. */
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, mlirCreateTesselExportCInterfacePass());
  MlirLogicalResult result =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  printf("run: %s\n", mlirLogicalResultIsSuccess(result) ? "ok" : "failed");
  printf("exported has c interface: %d\n", hasCInterface(module, "exported"));
  printf("internal has c interface: %d\n", hasCInterface(module, "internal"));
  mlirPassManagerDestroy(pm);

  /* Registration of the one chosen pass makes it parseable by name, while
   * passes that were not registered stay unknown. */
  mlirRegisterTesselExportCInterfacePass();
  MlirPassManager byName = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(byName);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm, mlirStringRefCreateFromCString("builtin.module(tessel-export-c-interface)"),
      printToFile, stderr);
  printf("parse registered pass: %s\n",
         mlirLogicalResultIsSuccess(parsed) ? "ok" : "failed");
  MlirPassManager other = mlirPassManagerCreate(ctx);
  MlirLogicalResult unknown = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(other),
      mlirStringRefCreateFromCString("builtin.module(tessel-validate-input)"),
      printToFile, stdout);
  printf("\nparse unregistered pass: %s\n",
         mlirLogicalResultIsSuccess(unknown) ? "ok" : "failed");

  /* Target accessors on a module without a target (a null attribute) and
   * on an attribute that is not a target answer "nothing", not garbage. */
  MlirAttribute none = tesselModuleGetTarget(module);
  MlirAttribute integer =
      mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("42 : i32"));
  printf("null target: is %d, kind length %zu, cores %lld\n",
         tesselAttributeIsATarget(none), tesselTargetGetKind(none).length,
         (long long)tesselTargetGetInt(none, "cores"));
  printf("integer target: is %d, kind length %zu, chip length %zu, cores "
         "%lld\n",
         tesselAttributeIsATarget(integer), tesselTargetGetKind(integer).length,
         tesselTargetGetChip(integer).length,
         (long long)tesselTargetGetInt(integer, "cores"));

  mlirOperationPrint(mlirModuleGetOperation(module), printToFile, stdout);
  printf("\n");
  mlirPassManagerDestroy(other);
  mlirPassManagerDestroy(byName);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
