/* runtime-c: a sentence for each status a run returns. */
#include "xcc_internal.h"

/* ---- Status --------------------------------------------------------------------------------- */

XCC_DEF const char *xcc_status_message(int32_t status) {
  switch (status) {
  case XCC_OK:
    return "success";
  case XCC_ERROR_NULL_TENSOR:
    return "a tensor pointer (input or output) is NULL";
  case XCC_ERROR_NULL_WORKSPACE:
    return "the workspace is NULL, but the model needs one (NAME_workspace_size() bytes)";
  case XCC_ERROR_WORKSPACE_MISALIGNED:
    return "the workspace is not aligned to 64 bytes";
  case XCC_ERROR_WORKSPACE_TOO_SMALL:
    return "the workspace is smaller than the model needs (NAME_workspace_size() bytes)";
  case XCC_ERROR_INDEX_OUT_OF_RANGE:
    return "an index input is out of range for the dimension it indexes; the outputs are unspecified";
  case XCC_ERROR_OUT_OF_MEMORY:
    return "the workspace could not be allocated";
  case XCC_ERROR_BAD_DIM:
    return "a run-time dim is negative, outside the model's range, disagrees with another dim, or makes a tensor too "
           "large (NAME_failed_check names the node and the condition where the model has one)";
  case XCC_ERROR_BAD_SHAPE_INPUT:
    return "an input that decides a shape holds values its operator refuses (a negative size, an axis "
           "out of range, element counts that differ; NAME_failed_check names the node and the condition)";
  case XCC_ERROR_UNSUPPORTED_INPUT:
    return "an input holds a value the compiled model does not support (NAME_failed_check names the "
           "node and the condition)";
  case XCC_ERROR_DIVISION_BY_ZERO:
    return "an integer Div or Mod read a divisor of 0; the outputs are unspecified";
  case XCC_ERROR_NOT_A_NUMBER:
    return "a string cast to a number does not start with one, or is outside the integer type's range; the "
           "outputs are unspecified";
  case XCC_ERROR_BAD_IMAGE:
    return "an ImageDecoder input is not an image the model decodes (BMP, PNM, PNG or uncompressed TIFF), or is "
           "corrupt";
  case XCC_ERROR_ALIASED_BUFFERS:
    return "an output was given the same buffer as an input the model reads while writing it (a KV cache's past "
           "and present in a model that does not append in place: the header lists those that do)";
  default:
    return "unknown xcc status code";
  }
}
