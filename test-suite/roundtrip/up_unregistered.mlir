// upstream
// Details of unregistered operations that upstream keeps: properties (`<{...}>`) stay apart
// from the attribute dictionary, and regions may end in unregistered operations (upstream
// cannot know whether "test.terminator" is a terminator, so it accepts the blocks as they are).
func.func @regions(%a: i32) -> i32 {
  %p = "test.props"(%a) <{p = 5 : i32}> {q = "r"} : (i32) -> i32
  "test.region"(%a) ({
  ^bb0(%x: i32):
    "test.use"(%x) : (i32) -> ()
    "test.terminator"() : () -> ()
  }, {
    "test.terminator"() : () -> ()
  }) : (i32) -> ()
  "test.graph"() ({
    "test.a"() : () -> ()
    "test.b"() : () -> ()
  }) : () -> ()
  return %a : i32
}
