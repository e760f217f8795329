/*===- tessel-c/Compiler.h - Tessel's compiler driver as a library -*- C -*-===*
 *
 * libTesselCompiler.so runs the tessel-compile driver in the caller's
 * process: parse, Tessel's pipeline for the target (through libTessel.so),
 * translation to LLVM IR, LLVM optimization and code generation, all on the
 * MLIR and LLVM C APIs. Frontends (the `tessel` Python package) use it so
 * that a compilation is exactly the tessel-compile command line it prints.
 * Producing a .so still runs the linker driver (LLVM's C API has no linker);
 * .o, .s, .ll, .bc and .mlir outputs run no other process.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TESSEL_C_COMPILER_H
#define TESSEL_C_COMPILER_H

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_COMPILER_EXPORT __attribute__((visibility("default")))

/* Runs `tessel-compile argv[1] ... argv[argc-1]` (argv[0] is ignored; see
 * `tessel-compile --help` for the options). Returns the exit code the
 * command would have returned: 0 on success. Everything the command would
 * print (diagnostics, remarks, --help, --print-pipeline, --time-stages) is
 * returned in *log as a NUL-terminated string (free it with
 * tesselCompilerFreeLog) when log is not NULL. Calls are serialized; the
 * function is safe to call from several threads. */
TESSEL_COMPILER_EXPORT int tesselCompilerRun(int argc, const char *const *argv, char **log);

TESSEL_COMPILER_EXPORT void tesselCompilerFreeLog(char *log);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_C_COMPILER_H */
