// error: 4:42: invalid hex digit in dense literal
// Found by the mlir_text fuzz target: a non-ASCII character in a hex dense string split a
// UTF-8 sequence when the digits were read in pairs (a panic).
memref.global @v : memref<2xf32> = dense<"0xAк0"> : memref<2xf32>
