// Package kernel is the contract between pipert's runtime and the kernels it
// schedules: tensors (Shape, DType, Tensor), the Kernel interface with its
// host stages (InferShape, Resize) and its computation (Compute), the
// dependency declarations that decide where the pipeline must wait (value
// and compute dependencies), and the Resolver and Factory through which a
// registry (kernel/ops) builds kernels from op names and attributes.
//
// # Element types
//
// DType names an element type: float32, float16, bfloat16, float64, the
// signed and unsigned integers of 8 to 64 bits, bool (a byte, 0 or 1), and
// ONNX's low-precision types — the float 8 types (Float8E4M3FN,
// Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0), Float4E2M1,
// Int4, Uint4, Int2 and Uint2. Every tensor is little-endian and holds
// whole bytes: a low-precision element is one byte (DType.Size is 1), a
// 4- or 2-bit one in the low bits (Int4 and Int2 sign-extended), and
// DType.Bits gives the width ONNX packs it to. float16, bfloat16 and the
// float 8 and float 4 types are storage types, converted by F16ToF32,
// BF16ToF32, F8ToF32 and their inverses.
//
// Dependency rule: kernel imports only device (the buffers of a kernel's
// operands and workspace, and the cost a kernel's launch is modeled by) and
// the standard library. Op implementations live in kernel/ops.
//
// # The life of one kernel
//
// For every node the runtime calls, in this order and never concurrently for
// the same Kernel value:
//
//  1. InferShape(in, out): fill out[i].Shape and out[i].DType from the inputs'
//     shapes and dtypes. For the inputs listed in Deps().Value, in[i].Host holds
//     the input's values, copied from the device after its producer completed.
//  2. Resize(in, out, t): compute tiling data and the workspace size from
//     shapes.
//  3. Cost(in, out), then the launch: the runtime allocates a.Out[i].Buf and
//     a.Workspace and launches the modeled work on the device; the kernel
//     never touches the device. When the data is real, it calls Compute(a)
//     for the results, which may run long only while polling a.Err.
//
// A compute-dependent kernel (Deps().Compute) reports an upper bound from
// InferShape; after it completed on the device the runtime calls
// ComputeDependent.OutputShapes to learn the real output shapes.
//
// The tensors a method is handed, their shapes, values and buffers, are
// valid during the call only: a kernel that keeps one (an output's Data to
// write in a later run, say) writes memory the runtime has since given to
// another tensor. A kernel must not call back into the executable running
// it (its Run, Close or WorkspaceSize): that call waits for the run it is
// part of, which never ends.
package kernel
