// The #tessel.target verifier runs when the attribute is parsed.
// RUN: mlir-opt --load-dialect-plugin=%tessel_plugin %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown target kind 'tpu' (expected cpu, nvgpu or amdgpu)}}
module attributes {tessel.target = #tessel.target<kind = "tpu">} {
}

// -----

// expected-error @+1 {{cache_line must be a power of two, got 48}}
module attributes {tessel.target = #tessel.target<kind = "cpu", cache_line = 48>} {
}

// -----

// expected-error @+1 {{vector_bits must be a multiple of 8, got 100}}
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 100>} {
}

// -----

// expected-error @+1 {{target field 'cores' must be non-negative, got -2}}
module attributes {tessel.target = #tessel.target<kind = "cpu", cores = -2>} {
}

// -----

// expected-error @+1 {{mma entries must be strings, got 16 : i64}}
module attributes {tessel.target = #tessel.target<kind = "nvgpu", mma = ["m16n8k16:f16xf16->f32", 16]>} {
}

// -----

// expected-error @+1 {{struct is missing required parameter: kind}}
module attributes {tessel.target = #tessel.target<chip = "sm_90a">} {
}
