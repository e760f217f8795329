//===- Pipelines.cpp - Register the embedded textual pipelines ------------===//
#include "pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace {
struct EmbeddedPipeline {
  const char *target;
  const char *text;
};
} // namespace

static const EmbeddedPipeline kPipelines[] = {
#include "pipelines/Pipelines.inc"
};

static constexpr StringLiteral kAnchorPrefix = "builtin.module(";

StringRef tessel::getPipelineText(StringRef target) {
  for (const EmbeddedPipeline &pipeline : kPipelines)
    if (target == pipeline.target)
      return pipeline.text;
  return {};
}

ArrayRef<StringRef> tessel::getPipelineTargets() {
  static const SmallVector<StringRef> targets = [] {
    SmallVector<StringRef> names;
    for (const EmbeddedPipeline &pipeline : kPipelines)
      names.push_back(pipeline.target);
    return names;
  }();
  return targets;
}

/// The pass list inside `builtin.module(...)`.
static StringRef stripAnchor(StringRef pipeline) {
  pipeline = pipeline.trim();
  if (pipeline.consume_front(kAnchorPrefix))
    pipeline.consume_back(")");
  return pipeline;
}

SmallVector<std::string> tessel::splitPipelineStages(StringRef pipeline) {
  StringRef body = stripAnchor(pipeline);
  SmallVector<std::string> stages;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0, e = body.size(); i <= e; ++i) {
    char c = i < e ? body[i] : ',';
    if (c == '(' || c == '{')
      ++depth;
    else if (c == ')' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      StringRef stage = body.slice(start, i).trim();
      if (!stage.empty())
        stages.push_back((kAnchorPrefix + stage + ")").str());
      start = i + 1;
    }
  }
  return stages;
}

void tessel::registerPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const EmbeddedPipeline &pipeline : kPipelines) {
      std::string name = ("tessel-" + StringRef(pipeline.target) + "-pipeline").str();
      std::string description =
          ("Tessel's complete lowering for " + StringRef(pipeline.target) +
           " targets (pipelines/" + pipeline.target + ".pipeline)")
              .str();
      StringRef body = stripAnchor(pipeline.text);
      // The registry keeps StringRefs to its name and description, so they
      // must live as long as the process.
      auto *nameStorage = new std::string(std::move(name));
      auto *descriptionStorage = new std::string(std::move(description));
      registerPassPipeline(
          *nameStorage, *descriptionStorage,
          [body, nameStorage](OpPassManager &pm, StringRef options,
                              function_ref<LogicalResult(const Twine &)>
                                  errorHandler) -> LogicalResult {
            if (!options.empty())
              return errorHandler("'" + *nameStorage +
                                  "' takes no options; run "
                                  "tessel-attach-target{...} before it to "
                                  "describe another machine");
            std::string message;
            llvm::raw_string_ostream os(message);
            if (failed(parsePassPipeline(body, pm, os)))
              return errorHandler("embedded pipeline '" + *nameStorage +
                                  "' does not parse: " + message);
            return success();
          },
          [](function_ref<void(const detail::PassOptions &)>) {});
    }
  });
}
