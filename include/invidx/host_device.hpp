// Marks a function that host and device code both call: nvcc compiles it for
// the GPU as well, every other compiler sees a plain inline function. It sits
// with the public types, at the bottom of the layers, so that any layer's
// shared code (the analyzer's byte classes and stemmer, codecs) can use it.
#pragma once

#if defined(__CUDACC__)
#define INVIDX_HOST_DEVICE __host__ __device__
#else
#define INVIDX_HOST_DEVICE
#endif
