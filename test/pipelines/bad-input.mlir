// Bad input stops every pipeline at tessel-validate-input with a diagnostic
// naming the op and the reason, before anything is transformed.
// RUN: %tessel-opt --pass-pipeline='builtin.module(tessel-cpu-pipeline)' %s -split-input-file -verify-diagnostics
// RUN: %tessel-opt --pass-pipeline='builtin.module(tessel-nvgpu-pipeline)' %s -split-input-file -verify-diagnostics
// RUN: %tessel-opt --pass-pipeline='builtin.module(tessel-amdgpu-pipeline)' %s -split-input-file -verify-diagnostics

// expected-error @+2 {{'func.func' op argument #0 has dynamic shape tensor<?x4xf32>: Tessel needs static shapes}}
// expected-error @+1 {{'func.func' op result #0 has dynamic shape tensor<?x4xf32>: Tessel needs static shapes}}
func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}

// -----

func.func @foreign(%f: f32) -> vector<4xf32> {
  // expected-error @+1 {{'vector.broadcast' op is from dialect 'vector', which Tessel does not accept as input}}
  %v = vector.broadcast %f : f32 to vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has element type complex<f32> in tensor<4xcomplex<f32>>, which Tessel does not support}}
func.func @complex(%a: tensor<4xcomplex<f32>>) {
  return
}
