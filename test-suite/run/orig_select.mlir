// The spec's `cond_br` example: both edges go to the same block with different operands, which
// needs a forwarding block in LLVM IR (a phi cannot tell two edges from one predecessor apart).
// run: @select(3, 7, true) == 3
// run: @select(3, 7, false) == 7
// run: @select(-1, 2147483647, true) == -1
// run: @select(-1, 2147483647, false) == 2147483647

func @select(%a : i32, %b :i32, %flag : i1) -> i32 {
    // Both targets are the same, operands differ
    cond_br %flag, ^bb1(%a : i32), ^bb1(%b : i32)

^bb1(%x : i32) :
    return %x : i32
}
