/*
 * The ZFP codecs built into the library: fixed accuracy (33), fixed
 * precision (34) and fixed rate (35), which see each block of a b2nd array as
 * a 1-4-D zfp field of float or double.
 *
 * - Chunks compressed through a super-chunk carrying a `b2nd` metalayer must
 *   be byte-identical to C-Blosc2 3.3.5's and decompress to the same values
 *   (sizes and FNV-1a hashes below were recorded with it: run this program
 *   with B2ND_ZFP_GENERATE=1 against the reference to print them again).
 *   The values also keep the promise of each mode (accuracy: within 10^meta).
 * - schunk->cctx compresses like the super-chunk's appends (it knows its
 *   super-chunk, so it finds the geometry).
 * - Arrays made with b2nd_from_cbuffer read back whole and by slices.
 * - What 3.3.5 refuses is refused: items that are not 4 or 8 bytes, blocks
 *   narrower than a zfp cell. Rates of 100% or more store blocks as is.
 */
#include <b2nd.h>
#include <blosc2/codecs-registry.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

typedef struct {
  const char *name;
  int nd;
  int32_t cs[4], bs[4];
  int ts;
  uint8_t compcode, cmeta;
  int32_t cbytes[2];
  uint32_t hash[2];
  uint32_t dhash[2];
} config_t;

/* Recorded with C-Blosc2 3.3.5 (nthreads = 1). Rates above 100% are left
 * out: 3.3.5 overflows a heap buffer with them (see test_overrate). */
static config_t configs[] = {
  {"acc-3-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 33, 253, {2592, 3240}, {0x5803cf09, 0xf07fc890}, {0x1cfbef60, 0xd5f5f6d9}},
  {"acc-1-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 33, 255, {2512, 32}, {0x4007c222, 0xab3b64f8}, {0x7981044a, 0x94848a45}},
  {"acc1-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 33, 1, {32, 992}, {0xab3b64f8, 0x71085ee1}, {0x94848a45, 0xc28c4d0a}},
  {"prec6-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 34, 6, {1312, 1664}, {0xd2111211, 0x576096a6}, {0x4d793bc0, 0x7c6920ad}},
  {"prec20-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 34, 20, {3400, 32}, {0xe180242c, 0xab3b64f8}, {0xd12bdb1f, 0x94848a45}},
  {"prec40-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 34, 40, {32, 3952}, {0xab3b64f8, 0x06deaac8}, {0x94848a45, 0x188f021c}},
  {"rate12-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 35, 12, {592, 592}, {0xfe74da0a, 0x33ab6997}, {0x70a3ea45, 0x14c5948c}},
  {"rate50-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 35, 50, {2112, 32}, {0x805d40b8, 0xab3b64f8}, {0x4e00c1c4, 0x94848a45}},
  {"rate100-1d-f32", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 4, 35, 100, {32, 4032}, {0xab3b64f8, 0xbbb9e292}, {0x94848a45, 0x44ddd0bb}},
  {"acc-3-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 33, 253, {2672, 3344}, {0x64b1b4ee, 0xa74e8eb7}, {0x4268cec5, 0x45c7f46d}},
  {"acc-1-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 33, 255, {2600, 32}, {0x51d887dc, 0x40253be2}, {0x306d1b27, 0x157bb6c5}},
  {"acc1-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 33, 1, {32, 1088}, {0x40253be2, 0xb3c01298}, {0x157bb6c5, 0xe36f7ddf}},
  {"prec6-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 34, 6, {1392, 1768}, {0x6a3a9482, 0xbf19d76a}, {0xb5fc4b15, 0xc66b924d}},
  {"prec20-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 34, 20, {3496, 32}, {0x12bee6e9, 0x40253be2}, {0xc6bb3319, 0x157bb6c5}},
  {"prec40-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 34, 40, {32, 5632}, {0x40253be2, 0xb0fd840c}, {0x157bb6c5, 0x33211f79}},
  {"rate12-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 35, 12, {1152, 1152}, {0x74f4187d, 0xef98843f}, {0x03cfb1f2, 0xde4cfc1a}},
  {"rate50-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 35, 50, {4112, 32}, {0x31f5ed61, 0x40253be2}, {0x5e90eb15, 0x157bb6c5}},
  {"rate100-1d-f64", 1, {1000, 0, 0, 0}, {100, 0, 0, 0}, 8, 35, 100, {32, 8032}, {0x40253be2, 0x1bd8e608}, {0x157bb6c5, 0x181c5e2b}},
  {"acc-3-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 33, 253, {4456, 5912}, {0x03ef11c4, 0x97e055a0}, {0xb70d53da, 0x68a3296a}},
  {"acc-1-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 33, 255, {4464, 416}, {0x132b09f0, 0x42cd4815}, {0x41e14373, 0x80eab1c5}},
  {"acc1-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 33, 1, {256, 1424}, {0xab166d30, 0xdd7a9733}, {0x80eab1c5, 0x9286703b}},
  {"prec6-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 34, 6, {2216, 2800}, {0xe8a663d1, 0x6f72054f}, {0xa364ff28, 0xe2358ae7}},
  {"prec20-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 34, 20, {6152, 720}, {0x27d23d07, 0x1d84645d}, {0xa708db0c, 0x80eab1c5}},
  {"prec40-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 34, 40, {816, 6784}, {0xb8e89bcf, 0xef9233cb}, {0x80eab1c5, 0x813defcd}},
  {"rate12-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 35, 12, {992, 992}, {0x3ee78380, 0x23613c0d}, {0xde760a8a, 0x21a630df}},
  {"rate50-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 35, 50, {3904, 3904}, {0x204fe9f8, 0x0550e484}, {0xa355b49f, 0x80eab1c5}},
  {"rate100-2d-f32", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 4, 35, 100, {7712, 7712}, {0x20d56cca, 0x2fe5ab4d}, {0x80eab1c5, 0x85f5307e}},
  {"acc-3-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 33, 253, {4504, 5944}, {0x777398a2, 0xf1596585}, {0x2de1f486, 0xfc90f6cf}},
  {"acc-1-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 33, 255, {4512, 432}, {0xce26576f, 0xc027628b}, {0x2b9d92a1, 0x7ca309c5}},
  {"acc1-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 33, 1, {288, 1472}, {0x935cc2a6, 0x38fce423}, {0x7ca309c5, 0xe8db23a1}},
  {"prec6-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 34, 6, {2272, 2824}, {0x674628c2, 0xee21b460}, {0x4dab82f3, 0x1724f96c}},
  {"prec20-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 34, 20, {6200, 736}, {0x6a7c7ca7, 0x2e850e67}, {0x783999cc, 0x7ca309c5}},
  {"prec40-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 34, 40, {1136, 10432}, {0x632a3e99, 0x379f10c9}, {0x7ca309c5, 0x93d8a309}},
  {"rate12-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 35, 12, {1920, 1920}, {0xc302ec63, 0xc232a212}, {0x4f92402d, 0x6afa79d0}},
  {"rate50-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 35, 50, {7744, 7744}, {0x2d3ba8d6, 0xd658e92a}, {0xbe6a3977, 0x7ca309c5}},
  {"rate100-2d-f64", 2, {48, 40, 0, 0}, {24, 20, 0, 0}, 8, 35, 100, {15392, 15392}, {0x2732f0e6, 0xdd93da71}, {0x7ca309c5, 0x07c22196}},
  {"acc-3-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 33, 253, {11384, 12832}, {0x405148a6, 0x7ffeeddb}, {0xd1e1fbad, 0xacd0fc06}},
  {"acc-1-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 33, 255, {12832, 1752}, {0x0279f250, 0x1e72f1c5}, {0xda27fd53, 0xc28e3ec5}},
  {"acc1-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 33, 1, {808, 2952}, {0xb8810ad9, 0x2057b56f}, {0x7e5a9645, 0xef1a97e4}},
  {"prec6-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 34, 6, {4656, 8472}, {0x965f3958, 0xde59b90a}, {0xf2e27c7c, 0x87a9a85f}},
  {"prec20-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 34, 20, {12832, 3816}, {0x52ac8447, 0x0bec4efd}, {0xf32c512e, 0xc28e3ec5}},
  {"prec40-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 34, 40, {4216, 12832}, {0x8acbc7e2, 0x23dd229c}, {0xc28e3ec5, 0xb46c7151}},
  {"rate12-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 35, 12, {3104, 3104}, {0x23b258f6, 0x2839bb9f}, {0x48261337, 0x3b41fac2}},
  {"rate50-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 35, 50, {12384, 12384}, {0xf3407911, 0xa86c6bcb}, {0xb2a05ab2, 0xc28e3ec5}},
  {"rate100-3d-f32", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 4, 35, 100, {12832, 12832}, {0xac53f5dd, 0x55ed85de}, {0xc28e3ec5, 0x6b6ea736}},
  {"acc-3-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 33, 253, {11432, 17432}, {0xcc71068d, 0x4f2855fe}, {0x88b6f17b, 0xf37ce86a}},
  {"acc-1-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 33, 255, {13336, 1784}, {0x5d7ead79, 0x9de32029}, {0xcc5e3a5d, 0xfc7c26c5}},
  {"acc1-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 33, 1, {824, 2992}, {0xd7309072, 0xdb92ae4a}, {0xdd5b3225, 0x9dcfb7f4}},
  {"prec6-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 34, 6, {4688, 8520}, {0x332d3581, 0xd4294b28}, {0xb53516f3, 0x6e1c067e}},
  {"prec20-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 34, 20, {18136, 3848}, {0x0e5e91f2, 0x84212174}, {0xa93aeda0, 0xfc7c26c5}},
  {"prec40-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 34, 40, {6544, 25632}, {0x6e3ee148, 0xd6047df3}, {0xfc7c26c5, 0x3f45a66c}},
  {"rate12-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 35, 12, {6048, 6048}, {0x05721918, 0xeb5ee50e}, {0x00f0a122, 0xbb52e654}},
  {"rate50-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 35, 50, {24672, 24672}, {0x0e9cf47c, 0x22e0324b}, {0x80c84222, 0xfc7c26c5}},
  {"rate100-3d-f64", 3, {10, 16, 20, 0}, {5, 8, 10, 0}, 8, 35, 100, {25632, 25632}, {0x4f48137f, 0x42ae5a3b}, {0xfc7c26c5, 0xe78b6cc9}},
  {"acc-3-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 33, 253, {16496, 24608}, {0xb7187a08, 0x7f87d239}, {0x00d1f91c, 0x1ce03e12}},
  {"acc-1-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 33, 255, {20888, 6792}, {0xf5d58cf1, 0x1aa49a2e}, {0x7a64aa4e, 0x26a62ac5}},
  {"acc1-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 33, 1, {3176, 3464}, {0xf4dbe435, 0x3c42ae5c}, {0x51d62d65, 0xd7d44212}},
  {"prec6-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 34, 6, {5392, 13912}, {0x563b8021, 0x0e725121}, {0x0dcdb471, 0x98894f94}},
  {"prec20-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 34, 20, {24608, 14616}, {0x2f5f8452, 0x8d8e62ef}, {0x75f50dcd, 0x26a62ac5}},
  {"prec40-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 34, 40, {15120, 20688}, {0x92e94cd5, 0x96cbb30c}, {0x26a62ac5, 0xe4c6b99d}},
  {"rate12-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 35, 12, {4064, 4064}, {0x493d699f, 0x057f407a}, {0x45523390, 0xc76aeb31}},
  {"rate50-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 35, 50, {16480, 16480}, {0xaca89845, 0x5b757b37}, {0xab6eef7f, 0x26a62ac5}},
  {"rate100-4d-f32", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 4, 35, 100, {24608, 24608}, {0x2422341b, 0x74fea9e2}, {0x26a62ac5, 0x35f3fee4}},
  {"acc-3-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 33, 253, {16432, 27016}, {0x60704ec7, 0xfe0eafb2}, {0x2032152b, 0xb491a2d6}},
  {"acc-1-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 33, 255, {20848, 6792}, {0xa113c896, 0x1e52baeb}, {0x78818624, 0x7cf4dac5}},
  {"acc1-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 33, 1, {3176, 3480}, {0x190cbe22, 0x0587ce6c}, {0xcf2dc345, 0xcca393ed}},
  {"prec6-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 34, 6, {5528, 13864}, {0x6f537761, 0xb3c0aa39}, {0x272eb099, 0x78ab2974}},
  {"prec20-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 34, 20, {28120, 14616}, {0xa3e1e023, 0x716d9544}, {0x4ce21fcf, 0x7cf4dac5}},
  {"prec40-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 34, 40, {25048, 40048}, {0x3bc16b9a, 0xb96df9c5}, {0x7cf4dac5, 0x97fc40fd}},
  {"rate12-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 35, 12, {7968, 7968}, {0x51663397, 0xf5e8664e}, {0xc271d36f, 0xbeafbdd2}},
  {"rate50-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 35, 50, {32864, 32864}, {0x18841ce3, 0x390f6d0f}, {0xe647dad0, 0x7cf4dac5}},
  {"rate100-4d-f64", 4, {8, 8, 8, 12}, {4, 4, 8, 6}, 8, 35, 100, {49184, 49184}, {0x24a62a03, 0x47150ab7}, {0x7cf4dac5, 0x91144aa9}},
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])

static int meta_b2nd(uint8_t *m, int nd, const int64_t *shape, const int32_t *cs, const int32_t *bs) {
  int p = 0;
  m[p++] = 0x97; m[p++] = 0; m[p++] = (uint8_t)nd; m[p++] = (uint8_t)(0x90 | nd);
  for (int i = 0; i < nd; i++) { m[p++] = 0xd3; for (int k = 7; k >= 0; k--) m[p++] = (uint8_t)(shape[i] >> (8 * k)); }
  m[p++] = (uint8_t)(0x90 | nd);
  for (int i = 0; i < nd; i++) { m[p++] = 0xd2; for (int k = 3; k >= 0; k--) m[p++] = (uint8_t)(cs[i] >> (8 * k)); }
  m[p++] = (uint8_t)(0x90 | nd);
  for (int i = 0; i < nd; i++) { m[p++] = 0xd2; for (int k = 3; k >= 0; k--) m[p++] = (uint8_t)(bs[i] >> (8 * k)); }
  m[p++] = 0; m[p++] = 0xdb; m[p++] = 0; m[p++] = 0; m[p++] = 0; m[p++] = 3;
  m[p++] = '<'; m[p++] = 'f'; m[p++] = '4';
  return p;
}

static uint64_t rng;
static uint32_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (uint32_t)rng; }

/* A smooth wave of period 2 made of +, -, * and floor only, so that every
 * CPU computes the same bits (libm's sin and cos differ in the last bit
 * between x86-64 and i686, which zfp's high precisions show). */
static double wave(double x) {
  double u = x - 2.0 * floor(x / 2.0) - 1.0; /* in [-1, 1) */
  double b = 1.0 - u * u;
  return 2.0 * b * b - 1.0;
}

/* Smooth fields with a little noise (kind 0), rough ones (1), constant
 * stretches (2). */
static double value(int64_t i, int kind, int32_t ncols) {
  int64_t r = i / ncols, c = i % ncols;
  switch (kind) {
    case 0: return wave(r * 0.016) * 100 + wave(c * 0.022 + 0.5) * 50 + (rnd() % 100) * 0.001;
    case 1: return (double)(rnd() % 10000) / 7.0 - 500;
    default: return (double)((r / 8) % 3) * 1.5;
  }
}

static void fill(uint8_t *buf, int64_t n, int ts, int kind, int32_t ncols) {
  for (int64_t i = 0; i < n; i++) {
    double v = value(i, kind, ncols);
    if (ts == 4) { float f = (float)v; memcpy(buf + 4 * i, &f, 4); }
    else memcpy(buf + 8 * i, &v, 8);
  }
}

static double item(const uint8_t *buf, int64_t i, int ts) {
  if (ts == 4) { float f; memcpy(&f, buf + 4 * i, 4); return f; }
  double d; memcpy(&d, buf + 8 * i, 8); return d;
}

static uint32_t fnv(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static void blank_filters(blosc2_cparams *cp) {
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) { cp->filters[i] = 0; cp->filters_meta[i] = 0; }
}

static blosc2_schunk *new_schunk(const config_t *c, int64_t *cn) {
  int64_t shape[4], bn = 1;
  *cn = 1;
  for (int i = 0; i < c->nd; i++) { shape[i] = c->cs[i] * 2; *cn *= c->cs[i]; bn *= c->bs[i]; }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = c->compcode; cp.compcode_meta = c->cmeta; cp.typesize = c->ts; cp.clevel = 5;
  cp.blocksize = (int32_t)(bn * c->ts); cp.nthreads = 1;
  blank_filters(&cp);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  uint8_t m[256];
  CHECK(blosc2_meta_add(sc, "b2nd", m, meta_b2nd(m, c->nd, shape, c->cs, c->bs)) >= 0);
  return sc;
}

static void run_config(int ci, config_t *c, int generate) {
  int64_t cn;
  blosc2_schunk *sc = new_schunk(c, &cn);
  size_t nbytes = (size_t)cn * c->ts;
  uint8_t *buf = malloc(nbytes), *back = malloc(nbytes);
  uint8_t *out = malloc(nbytes + BLOSC2_MAX_OVERHEAD);
  rng = 88172645463325252ULL ^ (uint64_t)(ci * 7919 + 1);
  if (generate) printf("  {\"%s\", %d, {%d, %d, %d, %d}, {%d, %d, %d, %d}, %d, %d, %d,", c->name, c->nd,
                       c->cs[0], c->cs[1], c->cs[2], c->cs[3], c->bs[0], c->bs[1], c->bs[2], c->bs[3],
                       c->ts, c->compcode, c->cmeta);
  int32_t cbs[2];
  uint32_t hs[2], dhs[2];
  for (int k = 0; k < 2; k++) {
    fill(buf, cn, c->ts, (ci + k) % 3, c->cs[c->nd - 1]);
    CHECK(blosc2_schunk_append_buffer(sc, buf, (int32_t)nbytes) == k + 1);
    uint8_t *chunk;
    bool needs_free;
    int cb = blosc2_schunk_get_chunk(sc, k, &chunk, &needs_free);
    REQUIRE(cb > 0);
    cbs[k] = cb;
    hs[k] = fnv(chunk, (size_t)cb);
    /* (big-endian: zfp's stream is made of native 64-bit words, and the
     * values are native: the same sizes, other bytes; see check.h) */
    int same_bytes = !check_host_big_endian();
    if (!generate) {
      if (cb != c->cbytes[k] || (same_bytes && hs[k] != c->hash[k]))
        fprintf(stderr, "%s chunk %d: %d bytes hash %08x, 3.3.5 made %d bytes hash %08x\n", c->name, k, cb,
                hs[k], c->cbytes[k], c->hash[k]);
      CHECK_EQ_INT(cb, c->cbytes[k]);
      if (same_bytes) CHECK_EQ_INT(hs[k], c->hash[k]);
    }
    /* the super-chunk's own context compresses the same way */
    int cb2 = blosc2_compress_ctx(sc->cctx, buf, (int32_t)nbytes, out, (int32_t)nbytes + BLOSC2_MAX_OVERHEAD);
    /* (an all-zero chunk is stored as a special-value chunk by the append) */
    if (cb > BLOSC_EXTENDED_HEADER_LENGTH) {
      CHECK_EQ_INT(cb2, cb);
      if (cb2 == cb) CHECK(memcmp(out, chunk, (size_t)cb) == 0);
    }
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, k, back, (int32_t)nbytes), (int)nbytes);
    check_to_le_items(back, nbytes, c->ts);
    dhs[k] = fnv(back, nbytes);
    check_to_le_items(back, nbytes, c->ts); /* back to values for below */
    if (!generate && dhs[k] != c->dhash[k])
      fprintf(stderr, "%s chunk %d: decoded hash %08x, 3.3.5 decoded %08x\n", c->name, k, dhs[k], c->dhash[k]);
    if (!generate) CHECK_EQ_INT(dhs[k], c->dhash[k]);
    /* the promise of each mode */
    double maxerr = 0;
    for (int64_t i = 0; i < cn; i++) {
      double e = fabs(item(buf, i, c->ts) - item(back, i, c->ts));
      if (e > maxerr) maxerr = e;
    }
    if (c->compcode == BLOSC_CODEC_ZFP_FIXED_ACCURACY) CHECK(maxerr <= pow(10, (int8_t)c->cmeta));
    if (c->compcode == BLOSC_CODEC_ZFP_FIXED_PRECISION && c->cmeta >= 20) CHECK(maxerr < 1e-3);
    if (c->compcode == BLOSC_CODEC_ZFP_FIXED_RATE && c->cmeta < 100) {
      /* fixed rate: each zfp cell of each block takes the same bits (cells
       * cut by the block edge too), streams end on a 64-bit word */
      int64_t cells = 1, nblocks = 1, values = 1;
      for (int i = 0; i < c->nd; i++) {
        cells *= (c->bs[i] + 3) / 4;
        nblocks *= (c->cs[i] + c->bs[i] - 1) / c->bs[i];
        values *= 4;
      }
      int64_t bits = (int64_t)floor(values * (c->cmeta / 100.0 * c->ts * 8) + 0.5);
      int64_t stream = (cells * bits + 63) / 64 * 8;
      CHECK(cb <= BLOSC_EXTENDED_HEADER_LENGTH + nblocks * (8 + stream)); /* + bstarts, csize */
    }
    if (needs_free) free(chunk);
  }
  if (generate)
    printf(" {%d, %d}, {0x%08x, 0x%08x}, {0x%08x, 0x%08x}},\n", cbs[0], cbs[1], hs[0], hs[1], dhs[0], dhs[1]);
  free(buf);
  free(back);
  free(out);
  blosc2_schunk_free(sc);
}

static void test_arrays(void) {
  int64_t shape[] = {37, 45};
  int32_t cs[] = {20, 24}, bs[] = {8, 8};
  uint8_t codes[] = {33, 34, 35}, metas[] = {(uint8_t)-2, 20, 50};
  for (int t = 0; t < 6; t++) {
    int ts = t < 3 ? 4 : 8;
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts;
    cp.compcode = codes[t % 3];
    cp.compcode_meta = metas[t % 3];
    blank_filters(&cp);
    blosc2_storage st = {.cparams = &cp, .contiguous = t % 2 == 0};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, NULL, 0, NULL, 0);
    REQUIRE(ctx != NULL);
    size_t n = 37 * 45, nb = n * ts;
    uint8_t *src = malloc(nb), *all = malloc(nb), *part = malloc(nb);
    rng = 12345 + t;
    fill(src, (int64_t)n, ts, 0, 45);
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, src, (int64_t)nb), 0);
    REQUIRE(a != NULL);
    CHECK_EQ_INT(b2nd_to_cbuffer(a, all, (int64_t)nb), 0);
    double maxerr = 0;
    for (size_t i = 0; i < n; i++) {
      double e = fabs(item(src, (int64_t)i, ts) - item(all, (int64_t)i, ts));
      if (e > maxerr) maxerr = e;
    }
    CHECK(maxerr < 20.0);
    if (t % 3 == 0) CHECK(maxerr <= 0.01);
    int64_t start[] = {3, 9}, stop[] = {11, 20}, pshape[] = {8, 11};
    CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, start, stop, part, pshape, 88 * ts), 0);
    int bad = 0;
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 11; j++)
        bad += memcmp(part + (i * 11 + j) * ts, all + ((3 + i) * 45 + 9 + j) * ts, ts) != 0;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(a->sc->compcode, codes[t % 3]);
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    free(src);
    free(all);
    free(part);
  }
}

static void test_refusals(void) {
  /* an item size that is neither float nor double, and blocks narrower than
   * a zfp cell, are refused when compressing (as 3.3.5 does) */
  config_t bad[] = {
    {"i16", 2, {16, 16}, {8, 8}, 2, 33, 0, {0}, {0}, {0}},
    {"narrow", 2, {16, 16}, {2, 8}, 4, 35, 50, {0}, {0}, {0}},
  };
  for (int i = 0; i < 2; i++) {
    int64_t cn;
    blosc2_schunk *sc = new_schunk(&bad[i], &cn);
    size_t nbytes = (size_t)cn * bad[i].ts;
    uint8_t *buf = malloc(nbytes);
    for (size_t j = 0; j < nbytes; j++) buf[j] = (uint8_t)(j * 7 + 1); /* not all zeros (a special chunk) */
    CHECK(blosc2_schunk_append_buffer(sc, buf, (int32_t)nbytes) < 0);
    free(buf);
    blosc2_schunk_free(sc);
  }
}

static void test_overrate(void) {
  /* a rate of 100% or more cannot shrink a block: it is stored as is and
   * reads back exactly (3.3.5 writes past a heap buffer above 100%) */
  config_t c = {"rate150", 2, {16, 16}, {8, 8}, 4, 35, 150, {0}, {0}, {0}};
  int64_t cn;
  blosc2_schunk *sc = new_schunk(&c, &cn);
  size_t nbytes = (size_t)cn * 4;
  uint8_t *buf = malloc(nbytes), *back = malloc(nbytes);
  rng = 4242;
  fill(buf, cn, 4, 1, 16);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, (int32_t)nbytes), 1);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, (int32_t)nbytes), (int)nbytes);
  CHECK(memcmp(buf, back, nbytes) == 0);
  free(buf);
  free(back);
  blosc2_schunk_free(sc);
}

int main(void) {
  blosc2_init();
  int generate = getenv("B2ND_ZFP_GENERATE") != NULL;
  const char *only = getenv("B2ND_ZFP_ONLY");
  for (int i = 0; i < NCONFIGS; i++)
    if (only == NULL || atoi(only) == i) run_config(i, &configs[i], generate);
  if (!generate) {
    test_arrays();
    test_refusals();
    test_overrate();
  }
  blosc2_destroy();
  return check_result("b2nd_zfp");
}
