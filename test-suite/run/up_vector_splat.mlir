// vector.splat, MLIR 21's spelling of a scalar broadcast (MLIR 22 reads only vector.broadcast,
// so this file is not differential): read as vector.broadcast, in the custom and generic forms.
// run: @splat_sum(2.5) == 10.0
// run: @generic_splat(7) == 21

func.func @splat_sum(%x: f32) -> f32 {
  %v = vector.splat %x : vector<4xf32>
  %r = vector.reduction <add>, %v : vector<4xf32> into f32
  return %r : f32
}

func.func @generic_splat(%x: i32) -> i32 {
  %v = "vector.splat"(%x) : (i32) -> vector<3xi32>
  %r = vector.reduction <add>, %v : vector<3xi32> into i32
  return %r : i32
}
