// Package alloc holds the device memory allocators behind device.Device: an
// Allocator interface over a simulated device address space and three
// implementations of it.
//
//   - Multilevel, the SW-AI card's segment/page multi-level allocator: page
//     bitmaps searched word at a time for large blocks, size-class free lists
//     carved from pages for small ones, MPE (paged) and CPE (segmented)
//     memory in one address space. An alloc+free pair costs about the same
//     at every size, from 1 KB to 1 GB.
//   - Caching, the baseline in the style of PyTorch's CUDA caching allocator:
//     512-byte rounding, best fit in a sorted tree, block splitting and
//     coalescing inside cached segments.
//   - Reference, a trivially correct first-fit allocator that the fast ones
//     are checked against.
//
// Replay runs a recorded allocation trace through an Allocator, and
// Measure and MeasureAll time alloc+free pairs (MeasureAll several
// allocators and sizes in interleaved rounds, for ratios); all measure real
// time on the host.
//
// An Allocator hands out address ranges, not host memory: the simulated
// device backs real-data buffers separately. Addresses are never 0, so the
// zero address can mean "no buffer". Implementations are not safe for
// concurrent use; the device serialises calls.
//
// Dependency rule: alloc imports only the standard library. The device
// package imports it, never the reverse.
package alloc
