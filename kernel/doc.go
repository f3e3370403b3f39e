// Package kernel is the contract between pipert's runtime and the kernels it
// schedules: tensors (Shape, DType, Tensor), the Kernel interface with its three
// host stages (InferShape, Resize, Launch), the dependency declarations that
// decide where the pipeline must wait (value and compute dependencies), and a
// Registry that builds kernels from op names and attributes.
//
// Dependency rule: kernel imports only device (the stream a kernel is launched
// on) and the standard library. Op implementations live in kernel/ops.
//
// # The life of one kernel
//
// For every node the runtime calls, in this order and never concurrently for
// the same Kernel value:
//
//  1. InferShape(in, out): fill out[i].Shape and out[i].DType from the inputs'
//     shapes and dtypes. For the inputs listed in Deps().Value, in[i].Host holds
//     the input's values, copied from the device after its producer completed.
//  2. Resize(in, out): compute tiling data and the workspace size from shapes.
//  3. Launch(s, a): enqueue the kernel on stream s. The runtime has allocated
//     a.Out[i].Buf and a.Workspace; the kernel must not block.
//
// A compute-dependent kernel (Deps().Compute) reports an upper bound from
// InferShape; after it completed on the device the runtime calls
// ComputeDependent.OutputShapes to learn the real output shapes.
package kernel
