"""Framework frontends: each translates one framework's graphs (torch FX,
jaxprs, TF graphs) into linalg-on-tensors MLIR with tessel.mlir."""


def registry():
    """A table of translation rules keyed by framework op, and the decorator
    that fills it: `rules, rule = registry()`, then `@rule("AddV2", ...)`."""
    rules: dict = {}

    def rule(*keys):
        def wrap(fn):
            for k in keys:
                rules[k] = fn
            return fn
        return wrap
    return rules, rule


def static_key(x):
    """A cache-key component for a trace-time constant: the value when it
    is hashable, else its repr."""
    try:
        hash(x)
        return x
    except TypeError:
        return repr(x)
