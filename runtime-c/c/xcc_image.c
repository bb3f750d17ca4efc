/* ImageDecoder: an encoded image decoded to 8-bit RGB, then written as RGB, BGR or grayscale
 * (ITU-R 601-2 luma in 16-bit fixed point, L = (19595 R + 38470 G + 7471 B + 2^15) >> 16, as Pillow
 * converts). The formats: BMP (uncompressed, 1, 4 and 8-bit palettes, 24 and 32 bits), PNM with a
 * maxval of 255 or bitmaps (P1-P6), PNG (every color type and bit depth, Adam7 interlacing; alpha
 * is dropped, 16-bit samples keep their high byte, where Pillow clamps 16-bit gray to 255), and
 * uncompressed TIFF (8-bit gray or RGB strips,
 * one plane). Anything else, or bytes that end early or do not add up, is XCC_ERROR_BAD_IMAGE. */
#include "xcc_internal.h"

enum image_format { IMAGE_NONE, IMAGE_BMP, IMAGE_PNM, IMAGE_PNG, IMAGE_TIFF };

struct image {
  const uint8_t *p;
  int64_t n;
  int64_t height, width;
};

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }
static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | (uint32_t)p[1]; }
static uint32_t be32(const uint8_t *p) { return be16(p) << 16 | be16(p + 2); }

/* Dims past this many pixels a side are refused: they are no image a model decodes. */
#define IMAGE_MAX_SIDE (1 << 24)

static int sides_ok(int64_t h, int64_t w) { return h > 0 && w > 0 && h <= IMAGE_MAX_SIDE && w <= IMAGE_MAX_SIDE; }

/* ---- PNM: P1-P6 ---------------------------------------------------------------------------- */

/* The next unsigned decimal token after whitespace and comments, from *at; -1 where none. */
static int64_t pnm_token(const struct image *im, int64_t *at) {
  const uint8_t *p = im->p;
  while (*at < im->n && (is_space((char)p[*at]) || p[*at] == '#')) {
    if (p[*at] == '#')
      while (*at < im->n && p[*at] != '\n')
        (*at)++;
    else
      (*at)++;
  }
  if (*at >= im->n || p[*at] < '0' || p[*at] > '9')
    return -1;
  int64_t v = 0;
  while (*at < im->n && p[*at] >= '0' && p[*at] <= '9' && v < IMAGE_MAX_SIDE)
    v = v * 10 + (p[(*at)++] - '0');
  return v;
}

/* The header: kind 1-6, and where the raster starts. */
static int pnm_header(struct image *im, int *kind, int64_t *raster) {
  if (im->n < 3 || im->p[0] != 'P' || im->p[1] < '1' || im->p[1] > '6')
    return 0;
  *kind = im->p[1] - '0';
  int64_t at = 2;
  im->width = pnm_token(im, &at);
  im->height = pnm_token(im, &at);
  int bitmap = *kind == 1 || *kind == 4;
  if (!bitmap && pnm_token(im, &at) != 255)
    return 0;
  /* One whitespace byte ends the header. */
  *raster = at + 1;
  return sides_ok(im->height, im->width) && *raster <= im->n;
}

static int pnm_decode(struct image *im, uint8_t *rgb) {
  int kind;
  int64_t at;
  if (!pnm_header(im, &kind, &at))
    return 0;
  int64_t pixels = im->height * im->width, channels = kind == 3 || kind == 6 ? 3 : 1;
  const uint8_t *p = im->p;
  if (kind == 4) {
    int64_t row = (im->width + 7) / 8;
    if (at + row * im->height > im->n)
      return 0;
    for (int64_t y = 0; y < im->height; y++)
      for (int64_t x = 0; x < im->width; x++) {
        uint8_t v = (p[at + y * row + x / 8] >> (7 - x % 8)) & 1 ? 0 : 255;
        memset(rgb + 3 * (y * im->width + x), v, 3);
      }
    return 1;
  }
  if (kind >= 5 && at + pixels * channels > im->n)
    return 0;
  for (int64_t i = 0; i < pixels; i++)
    for (int64_t c = 0; c < channels; c++) {
      int64_t v;
      if (kind >= 5) {
        v = p[at++];
      } else if (kind == 1) {
        /* Bitmap digits need no whitespace between them; 1 is black. */
        while (at < im->n && is_space((char)p[at]))
          at++;
        if (at >= im->n || (p[at] != '0' && p[at] != '1'))
          return 0;
        v = p[at++] == '1' ? 0 : 255;
      } else if ((v = pnm_token(im, &at)) < 0 || v > 255) {
        return 0;
      }
      if (channels == 1)
        memset(rgb + 3 * i, (int)v, 3);
      else
        rgb[3 * i + c] = (uint8_t)v;
    }
  return 1;
}

/* ---- BMP ------------------------------------------------------------------------------------ */

struct bmp {
  int64_t offset, stride;
  uint32_t bpp, palette_at, palette_size, entry;
  int top_down;
};

static int bmp_header(struct image *im, struct bmp *b) {
  const uint8_t *p = im->p;
  if (im->n < 26 || p[0] != 'B' || p[1] != 'M')
    return 0;
  uint32_t dib = le32(p + 14);
  int64_t height;
  uint32_t compression = 0, colors = 0;
  if (dib == 12) {
    im->width = le16(p + 18);
    /* The old header's height is unsigned: always bottom up. */
    height = le16(p + 20);
    b->bpp = le16(p + 24);
    b->entry = 3;
  } else if (dib >= 40 && im->n >= 54) {
    im->width = (int32_t)le32(p + 18);
    height = (int32_t)le32(p + 22);
    b->bpp = le16(p + 28);
    compression = le32(p + 30);
    colors = le32(p + 46);
    b->entry = 4;
  } else {
    return 0;
  }
  /* Uncompressed, or 32 bits in fields that are the usual bytes (BI_BITFIELDS). */
  int fields = compression == 3 && b->bpp == 32 && im->n >= 66 && le32(p + 54) == 0xff0000u &&
               le32(p + 58) == 0xff00u && le32(p + 62) == 0xffu;
  if (compression != 0 && !fields)
    return 0;
  if (b->bpp != 1 && b->bpp != 4 && b->bpp != 8 && b->bpp != 24 && b->bpp != 32)
    return 0;
  b->top_down = height < 0;
  im->height = height < 0 ? -height : height;
  b->offset = le32(p + 10);
  b->stride = (im->width * b->bpp + 31) / 32 * 4;
  b->palette_at = 14 + dib;
  b->palette_size = b->bpp <= 8 ? (colors && colors <= (1u << b->bpp) ? colors : 1u << b->bpp) : 0;
  if (!sides_ok(im->height, im->width) || b->offset + b->stride * im->height > im->n)
    return 0;
  return b->palette_at + (int64_t)b->palette_size * b->entry <= im->n;
}

static int bmp_decode(struct image *im, uint8_t *rgb) {
  struct bmp b;
  if (!bmp_header(im, &b))
    return 0;
  for (int64_t y = 0; y < im->height; y++) {
    /* Rows go bottom up unless the height is negative. */
    const uint8_t *row = im->p + b.offset + b.stride * (b.top_down ? y : im->height - 1 - y);
    for (int64_t x = 0; x < im->width; x++) {
      uint8_t *out = rgb + 3 * (y * im->width + x);
      const uint8_t *bgr;
      if (b.bpp <= 8) {
        uint32_t bit = (uint32_t)x * b.bpp, index = (row[bit / 8] >> (8 - b.bpp - bit % 8)) & ((1u << b.bpp) - 1);
        if (index >= b.palette_size)
          return 0;
        bgr = im->p + b.palette_at + index * b.entry;
      } else {
        bgr = row + x * (b.bpp / 8);
      }
      out[0] = bgr[2];
      out[1] = bgr[1];
      out[2] = bgr[0];
    }
  }
  return 1;
}

/* ---- TIFF: uncompressed strips ----------------------------------------------------------- */

struct tiff {
  int big;
  int64_t ifd;
  uint16_t entries;
};

static uint32_t tiff16(const struct tiff *t, const uint8_t *p) { return t->big ? be16(p) : le16(p); }
static uint32_t tiff32(const struct tiff *t, const uint8_t *p) { return t->big ? be32(p) : le32(p); }

/* Value `k` of field `tag` (BYTE, SHORT or LONG), or `otherwise` where the field is missing; -1
 * where it is malformed. */
static int64_t tiff_value(const struct image *im, const struct tiff *t, uint16_t tag, uint32_t k, int64_t otherwise) {
  for (uint32_t e = 0; e < t->entries; e++) {
    const uint8_t *entry = im->p + t->ifd + 2 + 12 * e;
    if (tiff16(t, entry) != tag)
      continue;
    uint32_t type = tiff16(t, entry + 2), count = tiff32(t, entry + 4);
    uint32_t size = type == 1 ? 1 : type == 3 ? 2 : type == 4 ? 4 : 0;
    if (!size || k >= count)
      return -1;
    int64_t at = (uint64_t)count * size <= 4 ? entry + 8 - im->p : (int64_t)tiff32(t, entry + 8);
    at += (int64_t)k * size;
    if (at < 0 || at + size > im->n)
      return -1;
    const uint8_t *v = im->p + at;
    return size == 1 ? v[0] : size == 2 ? tiff16(t, v) : tiff32(t, v);
  }
  return otherwise;
}

static int tiff_header(struct image *im, struct tiff *t) {
  const uint8_t *p = im->p;
  if (im->n < 8 || !((p[0] == 'I' && p[1] == 'I') || (p[0] == 'M' && p[1] == 'M')))
    return 0;
  t->big = p[0] == 'M';
  t->ifd = tiff32(t, p + 4);
  if (tiff16(t, p + 2) != 42 || t->ifd + 2 > im->n)
    return 0;
  t->entries = (uint16_t)tiff16(t, p + t->ifd);
  if (t->ifd + 2 + 12 * (int64_t)t->entries > im->n)
    return 0;
  im->width = tiff_value(im, t, 256, 0, -1);
  im->height = tiff_value(im, t, 257, 0, -1);
  /* Uncompressed: a byte a pixel at least, which the file must hold. */
  return sides_ok(im->height, im->width) && im->height * im->width <= im->n;
}

static int tiff_decode(struct image *im, uint8_t *rgb) {
  struct tiff t;
  if (!tiff_header(im, &t))
    return 0;
  int64_t samples = tiff_value(im, &t, 277, 0, 1), photometric = tiff_value(im, &t, 262, 0, -1);
  int64_t rows_per_strip = tiff_value(im, &t, 278, 0, im->height);
  int gray = photometric == 0 || photometric == 1;
  if (tiff_value(im, &t, 259, 0, 1) != 1 || tiff_value(im, &t, 284, 0, 1) != 1 || rows_per_strip < 1)
    return 0;
  /* Gray, gray and alpha, RGB, RGBA and a few extra samples at most. */
  if (!(gray && samples >= 1 && samples <= 8) && !(photometric == 2 && samples >= 3 && samples <= 8))
    return 0;
  for (int64_t s = 0; s < samples; s++) {
    /* One value for every sample is common too. */
    int64_t bits = tiff_value(im, &t, 258, (uint32_t)s, 1);
    if ((bits < 0 ? tiff_value(im, &t, 258, 0, 1) : bits) != 8)
      return 0;
  }
  int64_t row_bytes = im->width * samples;
  for (int64_t y = 0; y < im->height; y++) {
    int64_t strip = tiff_value(im, &t, 273, (uint32_t)(y / rows_per_strip), -1);
    /* Sides below 2^24 and at most 8 samples: no product here overflows. */
    int64_t at = strip + (y % rows_per_strip) * row_bytes;
    if (strip < 0 || at > im->n || row_bytes > im->n - at)
      return 0;
    for (int64_t x = 0; x < im->width; x++) {
      const uint8_t *v = im->p + at + x * samples;
      uint8_t *out = rgb + 3 * (y * im->width + x);
      if (gray)
        memset(out, photometric == 0 ? 255 - v[0] : v[0], 3);
      else
        memcpy(out, v, 3);
    }
  }
  return 1;
}

/* ---- Inflate (RFC 1950 and 1951) ---------------------------------------------------------- */

struct bits {
  const uint8_t *p;
  int64_t n, at;
  uint32_t buffer;
  int count, bad;
};

static uint32_t bits_take(struct bits *s, int need) {
  uint32_t v = s->buffer;
  while (s->count < need) {
    if (s->at >= s->n) {
      s->bad = 1;
      return 0;
    }
    v |= (uint32_t)s->p[s->at++] << s->count;
    s->count += 8;
  }
  s->buffer = need < 32 ? v >> need : 0;
  s->count -= need;
  return need < 32 ? v & ((1u << need) - 1) : v;
}

/* A canonical Huffman code: how many codes of each length, and the symbols in code order. */
struct huffman {
  int16_t count[16];
  int16_t symbol[320];
};

/* 0 where the lengths make a code (complete or not), -1 where they are over-subscribed. */
static int huffman_make(struct huffman *h, const uint8_t *lengths, int n) {
  int16_t offsets[16];
  memset(h->count, 0, sizeof h->count);
  for (int s = 0; s < n; s++)
    h->count[lengths[s]]++;
  int left = 1;
  for (int len = 1; len < 16; len++) {
    left = 2 * left - h->count[len];
    if (left < 0)
      return -1;
  }
  offsets[1] = 0;
  for (int len = 1; len < 15; len++)
    offsets[len + 1] = (int16_t)(offsets[len] + h->count[len]);
  for (int s = 0; s < n; s++)
    if (lengths[s])
      h->symbol[offsets[lengths[s]]++] = (int16_t)s;
  return 0;
}

/* The next symbol, read a bit at a time (codes come most significant bit first); -1 where none. */
static int huffman_read(struct bits *s, const struct huffman *h) {
  int code = 0, first = 0, index = 0;
  for (int len = 1; len < 16; len++) {
    code |= (int)bits_take(s, 1);
    int count = h->count[len];
    if (code - first < count)
      return s->bad ? -1 : h->symbol[index + code - first];
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

/* Deflate's length and distance codes: base values and extra bits (RFC 1951, 3.2.5). */
static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                         31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                           33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                           1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* One block's symbols into out[*at..cap). */
static int inflate_codes(struct bits *s, uint8_t *out, int64_t *at, int64_t cap, const struct huffman *lengths,
                         const struct huffman *distances) {
  for (;;) {
    int symbol = huffman_read(s, lengths);
    if (symbol < 0)
      return 0;
    if (symbol < 256) {
      if (*at >= cap)
        return 0;
      out[(*at)++] = (uint8_t)symbol;
      continue;
    }
    if (symbol == 256)
      return 1;
    symbol -= 257;
    if (symbol >= 29)
      return 0;
    int64_t length = length_base[symbol] + bits_take(s, length_extra[symbol]);
    int d = huffman_read(s, distances);
    if (d < 0 || d >= 30)
      return 0;
    int64_t distance = distance_base[d] + bits_take(s, distance_extra[d]);
    if (s->bad || distance > *at || *at + length > cap)
      return 0;
    for (int64_t k = 0; k < length; k++, (*at)++)
      out[*at] = out[*at - distance];
  }
}

static int inflate_dynamic(struct bits *s, uint8_t *out, int64_t *at, int64_t cap) {
  static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  uint8_t lengths[320] = {0};
  int nlen = (int)bits_take(s, 5) + 257, ndist = (int)bits_take(s, 5) + 1, ncode = (int)bits_take(s, 4) + 4;
  if (nlen > 286 || ndist > 30)
    return 0;
  for (int k = 0; k < ncode; k++)
    lengths[order[k]] = (uint8_t)bits_take(s, 3);
  struct huffman code_lengths, literal, distance;
  if (s->bad || huffman_make(&code_lengths, lengths, 19) < 0)
    return 0;
  for (int k = 0; k < nlen + ndist;) {
    int symbol = huffman_read(s, &code_lengths);
    if (symbol < 0)
      return 0;
    if (symbol < 16) {
      lengths[k++] = (uint8_t)symbol;
      continue;
    }
    uint8_t repeated = 0;
    int times;
    if (symbol == 16) {
      if (k == 0)
        return 0;
      repeated = lengths[k - 1];
      times = 3 + (int)bits_take(s, 2);
    } else {
      times = symbol == 17 ? 3 + (int)bits_take(s, 3) : 11 + (int)bits_take(s, 7);
    }
    if (k + times > nlen + ndist)
      return 0;
    while (times--)
      lengths[k++] = repeated;
  }
  if (huffman_make(&literal, lengths, nlen) < 0 || huffman_make(&distance, lengths + nlen, ndist) < 0)
    return 0;
  return inflate_codes(s, out, at, cap, &literal, &distance);
}

static int inflate_fixed(struct bits *s, uint8_t *out, int64_t *at, int64_t cap) {
  uint8_t lengths[318];
  int k = 0;
  for (; k < 144; k++)
    lengths[k] = 8;
  for (; k < 256; k++)
    lengths[k] = 9;
  for (; k < 280; k++)
    lengths[k] = 7;
  for (; k < 288; k++)
    lengths[k] = 8;
  for (; k < 318; k++)
    lengths[k] = 5;
  struct huffman literal, distance;
  huffman_make(&literal, lengths, 288);
  huffman_make(&distance, lengths + 288, 30);
  return inflate_codes(s, out, at, cap, &literal, &distance);
}

static int inflate_stored(struct bits *s, uint8_t *out, int64_t *at, int64_t cap) {
  s->buffer = 0;
  s->count = 0;
  if (s->at + 4 > s->n)
    return 0;
  uint32_t length = le16(s->p + s->at), check = le16(s->p + s->at + 2);
  s->at += 4;
  if ((length ^ 0xffffu) != check || s->at + length > s->n || *at + length > cap)
    return 0;
  memcpy(out + *at, s->p + s->at, length);
  s->at += length;
  *at += length;
  return 1;
}

/* A zlib stream (no preset dictionary) inflated into exactly `size` bytes, its Adler-32 checked. */
static int zlib_inflate(const uint8_t *p, int64_t n, uint8_t *out, int64_t size) {
  if (n < 6 || (p[0] & 15) != 8 || (p[0] * 256 + p[1]) % 31 != 0 || (p[1] & 0x20))
    return 0;
  struct bits s = {p, n, 2, 0, 0, 0};
  int64_t at = 0;
  for (int last = 0; !last;) {
    last = (int)bits_take(&s, 1);
    uint32_t type = bits_take(&s, 2);
    int ok = type == 0 ? inflate_stored(&s, out, &at, size)
             : type == 1 ? inflate_fixed(&s, out, &at, size)
             : type == 2 ? inflate_dynamic(&s, out, &at, size)
                         : 0;
    if (!ok || s.bad)
      return 0;
  }
  if (at != size || s.at + 4 > n)
    return 0;
  uint32_t a = 1, b = 0;
  for (int64_t k = 0; k < size; k++) {
    a = (a + out[k]) % 65521;
    b = (b + a) % 65521;
  }
  return (b << 16 | a) == be32(p + s.at);
}

/* ---- PNG ------------------------------------------------------------------------------------ */

struct png {
  uint32_t depth, color, interlaced, channels;
  const uint8_t *palette;
  uint32_t palette_size;
  int64_t data_bytes;
};

/* Calls `chunk` on each chunk after IHDR up to IEND; 0 where they run past the bytes. */
static int png_chunks(const struct image *im, int (*chunk)(void *, const uint8_t *, const uint8_t *, uint32_t),
                      void *context) {
  for (int64_t at = 8; at + 12 <= im->n;) {
    uint32_t length = be32(im->p + at);
    const uint8_t *type = im->p + at + 4;
    if (length > im->n - at - 12)
      return 0;
    if (!memcmp(type, "IEND", 4))
      return 1;
    if (!chunk(context, type, type + 4, length))
      return 0;
    at += 12 + (int64_t)length;
  }
  return 0;
}

static int png_header(struct image *im, struct png *g) {
  const uint8_t *p = im->p;
  if (im->n < 33 || memcmp(p, "\x89PNG\r\n\x1a\n", 8) || memcmp(p + 12, "IHDR", 4))
    return 0;
  im->width = be32(p + 16);
  im->height = be32(p + 20);
  g->depth = p[24];
  g->color = p[25];
  g->interlaced = p[28];
  static const uint8_t channels[7] = {1, 0, 3, 1, 2, 0, 4};
  g->channels = g->color < 7 ? channels[g->color] : 0;
  int depth_ok = g->color == 0   ? (g->depth == 1 || g->depth == 2 || g->depth == 4 || g->depth == 8 || g->depth == 16)
                 : g->color == 3 ? (g->depth == 1 || g->depth == 2 || g->depth == 4 || g->depth == 8)
                                 : (g->depth == 8 || g->depth == 16);
  return g->channels && depth_ok && p[26] == 0 && p[27] == 0 && g->interlaced <= 1 && sides_ok(im->height, im->width);
}

/* Adam7's passes: first column and row, and the steps between them. */
static const uint8_t adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                    {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};

/* A pass's columns and rows (the whole image where it is not interlaced). */
static void png_pass(const struct image *im, const struct png *g, int pass, int64_t *w, int64_t *h) {
  if (!g->interlaced) {
    *w = im->width;
    *h = im->height;
    return;
  }
  const uint8_t *a = adam7[pass];
  *w = im->width > a[0] ? (im->width - a[0] + a[2] - 1) / a[2] : 0;
  *h = im->height > a[1] ? (im->height - a[1] + a[3] - 1) / a[3] : 0;
}

static int64_t png_row_bytes(const struct png *g, int64_t w) { return (w * g->channels * g->depth + 7) / 8; }

struct png_data {
  struct png *g;
  uint8_t *data;
  int64_t at;
};

/* Counts the IDAT bytes and takes PLTE (data NULL), or gathers the IDAT bytes. */
static int png_chunk(void *context, const uint8_t *type, const uint8_t *bytes, uint32_t length) {
  struct png_data *d = context;
  if (!memcmp(type, "IDAT", 4)) {
    if (d->data)
      memcpy(d->data + d->at, bytes, length);
    d->at += length;
  } else if (!memcmp(type, "PLTE", 4) && !d->data) {
    d->g->palette = bytes;
    d->g->palette_size = length / 3;
  }
  return 1;
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes row `row`'s filter (its first byte) against the row before (`prior`, NULL for the first). */
static int png_unfilter(uint8_t *row, const uint8_t *prior, int64_t bytes, int64_t unit) {
  uint8_t filter = row[0];
  row++;
  prior = prior ? prior + 1 : NULL;
  for (int64_t k = 0; k < bytes; k++) {
    uint8_t a = k >= unit ? row[k - unit] : 0, b = prior ? prior[k] : 0, c = prior && k >= unit ? prior[k - unit] : 0;
    switch (filter) {
    case 0:
      break;
    case 1:
      row[k] = (uint8_t)(row[k] + a);
      break;
    case 2:
      row[k] = (uint8_t)(row[k] + b);
      break;
    case 3:
      row[k] = (uint8_t)(row[k] + ((a + b) >> 1));
      break;
    case 4:
      row[k] = (uint8_t)(row[k] + paeth(a, b, c));
      break;
    default:
      return 0;
    }
  }
  return 1;
}

/* Sample `s` of pixel `x` in an unfiltered row, as 8 bits (small depths scaled up, 16 bits' high
 * byte; palette indices as they are). */
static uint32_t png_sample(const struct png *g, const uint8_t *row, int64_t x, uint32_t s) {
  int64_t bit = (x * g->channels + s) * g->depth;
  if (g->depth >= 8)
    return row[bit / 8];
  uint32_t v = (row[bit / 8] >> (8 - g->depth - bit % 8)) & ((1u << g->depth) - 1);
  return g->color == 3 ? v : v * 255 / ((1u << g->depth) - 1);
}

static int png_pixel(const struct png *g, const uint8_t *row, int64_t x, uint8_t *out) {
  if (g->color == 3) {
    uint32_t index = png_sample(g, row, x, 0);
    if (index >= g->palette_size)
      return 0;
    memcpy(out, g->palette + 3 * index, 3);
  } else if (g->color == 0 || g->color == 4) {
    memset(out, (int)png_sample(g, row, x, 0), 3);
  } else {
    for (uint32_t c = 0; c < 3; c++)
      out[c] = (uint8_t)png_sample(g, row, x, c);
  }
  return 1;
}

static int png_decode(struct image *im, uint8_t *rgb) {
  struct png g = {0};
  if (!png_header(im, &g))
    return 0;
  struct png_data d = {&g, NULL, 0};
  if (!png_chunks(im, png_chunk, &d) || (g.color == 3 && !g.palette))
    return 0;
  int64_t size = 0, w, h;
  for (int pass = 0; pass < (g.interlaced ? 7 : 1); pass++) {
    png_pass(im, &g, pass, &w, &h);
    size += w ? h * (1 + png_row_bytes(&g, w)) : 0;
  }
  uint8_t *compressed = malloc(d.at ? (size_t)d.at : 1), *raw = malloc((size_t)size + 1);
  int ok = compressed && raw;
  if (ok) {
    d.data = compressed;
    d.at = 0;
    ok = png_chunks(im, png_chunk, &d) && zlib_inflate(compressed, d.at, raw, size);
  }
  int64_t unit = (g.channels * g.depth + 7) / 8, at = 0;
  for (int pass = 0; ok && pass < (g.interlaced ? 7 : 1); pass++) {
    png_pass(im, &g, pass, &w, &h);
    if (!w)
      continue;
    int64_t bytes = png_row_bytes(&g, w);
    const uint8_t *a = adam7[pass];
    for (int64_t y = 0; ok && y < h; y++, at += 1 + bytes) {
      uint8_t *row = raw + at;
      ok = png_unfilter(row, y ? row - 1 - bytes : NULL, bytes, unit);
      for (int64_t x = 0; ok && x < w; x++) {
        int64_t ix = g.interlaced ? a[0] + x * a[2] : x, iy = g.interlaced ? a[1] + y * a[3] : y;
        ok = png_pixel(&g, row + 1, x, rgb + 3 * (iy * im->width + ix));
      }
    }
  }
  free(compressed);
  free(raw);
  return ok;
}

/* ---- The entry points ----------------------------------------------------------------------- */

static enum image_format image_format_of(struct image *im) {
  struct bmp b;
  struct png g;
  struct tiff t;
  int kind;
  int64_t raster;
  if (png_header(im, &g))
    return IMAGE_PNG;
  if (bmp_header(im, &b))
    return IMAGE_BMP;
  if (tiff_header(im, &t))
    return IMAGE_TIFF;
  if (pnm_header(im, &kind, &raster))
    return IMAGE_PNM;
  return IMAGE_NONE;
}

/* The format and dims, where the dims fit the bytes: the uncompressed formats hold at least a
 * pixel in 8 bits' worth of bytes (bitmaps; TIFF a byte a pixel, checked by its header), and
 * deflate compresses at most 1032 to 1, so a header claiming more pixels than 8448 a byte is
 * corrupt (and would make the caller allocate for nothing). */
static enum image_format image_header(struct image *im) {
  enum image_format format = image_format_of(im);
  return format != IMAGE_NONE && im->height * im->width <= 8448 * im->n ? format : IMAGE_NONE;
}

XCC_DEF int64_t xcc_image_dim(const uint8_t *bytes, int64_t n, int32_t which) {
  struct image im = {bytes, n, 0, 0};
  if (!bytes || image_header(&im) == IMAGE_NONE)
    return 0;
  return which == 0 ? im.height : im.width;
}

static int32_t image_decode(const uint8_t *bytes, int64_t n, uint8_t *out, int64_t height, int64_t width,
                            int32_t format) {
  struct image im = {bytes, n, 0, 0};
  enum image_format kind = bytes ? image_header(&im) : IMAGE_NONE;
  if (kind == IMAGE_NONE || im.height != height || im.width != width)
    return XCC_ERROR_BAD_IMAGE;
  uint8_t *rgb = malloc((size_t)(height * width * 3));
  if (!rgb)
    return XCC_ERROR_OUT_OF_MEMORY;
  int ok = kind == IMAGE_PNG ? png_decode(&im, rgb)
           : kind == IMAGE_BMP ? bmp_decode(&im, rgb)
           : kind == IMAGE_TIFF ? tiff_decode(&im, rgb)
                                : pnm_decode(&im, rgb);
  for (int64_t i = 0; ok && i < height * width; i++) {
    const uint8_t *p = rgb + 3 * i;
    if (format == 2) {
      out[i] = (uint8_t)((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16);
    } else {
      for (int c = 0; c < 3; c++)
        out[3 * i + c] = p[format == 1 ? 2 - c : c];
    }
  }
  free(rgb);
  return ok ? XCC_OK : XCC_ERROR_BAD_IMAGE;
}

XCC_DEF void xcc_image_decode(const uint8_t *bytes, int64_t n, uint8_t *out, int64_t height, int64_t width,
                              int32_t format, int32_t *status) {
  int32_t rc = image_decode(bytes, n, out, height, width, format);
  if (rc != XCC_OK)
    fail_status(status, rc);
}
