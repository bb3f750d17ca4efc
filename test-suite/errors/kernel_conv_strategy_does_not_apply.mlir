// error: 6:3: kernel.conv strategy 'depthwise' does not compute this convolution
// stage: driver
// A strategy written on the op is applied as it is, so one that cannot compute the
// convolution (here a depthwise kernel for a convolution of one group) is refused.
func.func @f(%x: memref<1x4x8x8xf32>, %w: memref<4x4x1x1xf32>, %y: memref<1x4x8x8xf32>) {
  kernel.conv ins(%x, %w : memref<1x4x8x8xf32>, memref<4x4x1x1xf32>) outs(%y : memref<1x4x8x8xf32>) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, strategy = "depthwise"}
  return
}
