/* Drives the ImageDecoder model tests/run_checks.rs builds:
 *   images.h: x uint8[17]; y = ImageDecoder(x, RGB), g = ImageDecoder(x, Grayscale).
 *   sized.h: x uint8[n]; y = ImageDecoder(x, BGR).
 * Two binary PPMs of 17 bytes (2 x 1 and 1 x 2 pixels): the output dims follow each header, the
 * pixels come out as written, and the gray values are Pillow's luma worked out by hand,
 * (19595 R + 38470 G + 7471 B + 2^15) >> 16. One library decodes PGM and PPM files of different
 * byte counts (n given at run time). Bytes that are no image (a maxval of 254, text) make the run
 * return XCC_ERROR_BAD_IMAGE. Prints "ok N checks". */
#include "images.h"
#include "sized.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void decoded(const char *header, int64_t h, int64_t w) {
  uint8_t x[17];
  memcpy(x, header, 11);
  const uint8_t pixels[6] = {10, 20, 30, 40, 50, 250};
  memcpy(x + 11, pixels, 6);
  int64_t y_dims[3], g_dims[3];
  CHECK(images_output_dims(x, y_dims, g_dims) == XCC_OK, "%s: output dims", header);
  CHECK(y_dims[0] == h && y_dims[1] == w && y_dims[2] == 3, "%s: y's dims [%lld, %lld, %lld]", header,
        (long long)y_dims[0], (long long)y_dims[1], (long long)y_dims[2]);
  CHECK(g_dims[0] == h && g_dims[1] == w && g_dims[2] == 1, "%s: g's dims", header);
  uint8_t y[6], g[2];
  int32_t rc = images_run_alloc(x, y, g);
  CHECK(rc == XCC_OK, "%s: run = %d (%s)", header, rc, xcc_status_message(rc));
  CHECK(memcmp(y, pixels, 6) == 0, "%s: y = %u %u %u %u %u %u", header, y[0], y[1], y[2], y[3], y[4], y[5]);
  /* 10, 20, 30: 1222248 >> 16 = 18; 40, 50, 250: 4607818 >> 16 = 70. */
  CHECK(g[0] == 18 && g[1] == 70, "%s: g = %u %u, expected 18 70", header, g[0], g[1]);
}

static void refused(const char *bytes, const char *what) {
  uint8_t x[17];
  memcpy(x, bytes, 17);
  uint8_t y[6], g[2];
  int32_t rc = images_run_alloc(x, y, g);
  CHECK(rc == XCC_ERROR_BAD_IMAGE, "%s: run = %d (%s)", what, rc, xcc_status_message(rc));
}

/* A 1 x 2 PGM (13 bytes) and a 3 x 1 PPM (20 bytes) through the library of any size, as BGR. */
static void sized(void) {
  const uint8_t gray[13] = {'P', '5', ' ', '2', ' ', '1', ' ', '2', '5', '5', '\n', 7, 200};
  const uint8_t rgb[20] = {'P', '6', ' ', '1', ' ', '3', ' ', '2', '5', '5', '\n', 1, 2, 3, 4, 5, 6, 7, 8, 9};
  int64_t dims[3];
  uint8_t y[9];
  CHECK(sized_output_dims(13, gray, dims) == XCC_OK && dims[0] == 1 && dims[1] == 2 && dims[2] == 3, "PGM dims");
  CHECK(sized_run_alloc(13, gray, y) == XCC_OK, "PGM run");
  CHECK(y[0] == 7 && y[1] == 7 && y[2] == 7 && y[3] == 200 && y[5] == 200, "PGM pixels %u %u", y[0], y[3]);
  CHECK(sized_output_dims(20, rgb, dims) == XCC_OK && dims[0] == 3 && dims[1] == 1, "PPM dims");
  CHECK(sized_run_alloc(20, rgb, y) == XCC_OK, "PPM run");
  CHECK(y[0] == 3 && y[1] == 2 && y[2] == 1 && y[6] == 9 && y[8] == 7, "PPM as BGR: %u %u %u", y[0], y[1], y[2]);
  CHECK(sized_run_alloc(12, gray, y) == XCC_ERROR_BAD_IMAGE, "a PGM a byte short");
}

int main(void) {
  decoded("P6\n2 1\n255\n", 1, 2);
  decoded("P6 1 2 255\n", 2, 1);
  refused("P6\n2 1\n254\n\1\2\3\4\5\6", "a maxval of 254");
  refused("not an image at all", "text");
  sized();
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
