/* The GPU emulator: runtime-c's GPU calls with "device" memory in host memory and launches run
 * on the calling thread (see xcc_gpu.c), for libraries built with --emulate-gpu. */
#define XCC_GPU_EMULATE 1
#include "xcc_gpu.c"
