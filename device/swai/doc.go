// Package swai simulates the Shenwei SW-AI accelerator card as its SDAA
// runtime presents it (Zhao et al., SDAA: Runtime System for Shenwei AI
// Acceleration Card, Journal of Software 35(12), 2024; sections 2-4), with a
// CUDA-like V100 profile to compare against.
//
// Every cost model of the paper is a small pure piece driven by one
// Profile:
//
//   - Ring: the single-level command buffer consumed in order by the MPE
//     acting as dispatcher (the GPU: a ring of pointers in front of a
//     command buffer). It is the device.Launcher of the card: a full buffer
//     makes the host wait.
//   - Profile.KLO, KLL, Burst: kernel launch overhead, equations 12-14, fast
//     (the cores' daemon already running, one core queried) and
//     traditional (cores initialised, 32 started and queried one by one).
//   - Profile.MallocTime, MallocHostTime: sdaaMalloc, equations 1-3 with
//     the allocator's real, measured time; sdaaMallocHost as algorithm 1's
//     IOMMU remapping.
//   - Profile.PinnedTime and the pageable paths: DMA over 8 channels that
//     share the bus (equations 4-5, figure 5); pageable memory either
//     through MTMC (N_t host threads really copying into pinned staging
//     buffers feeding all channels) or through one thread and one channel
//     with double buffering.
//   - D2DTable: the adaptive choice among the MPE, CPE, DMA and IOMMU
//     engines (equations 6-11, figure 6), never slower than any one of them.
//
// Device puts them together: it embeds a device.Sim (so it is a
// device.Device whose kernel launches go through the Ring) and adds the SDAA
// calls Malloc, MallocHost and the Memcpy family with their modeled costs.
// Figures reproduces the paper's figures 8-13 as rows; WriteTable prints
// them.
//
// Host work is real and device work is modeled, as in package device:
// pageable copies really copy on the host and time it, the allocator really
// runs and is timed, and the host's copy speed is measured at start-up
// (Calibrate). Everything else is computed from the profile.
//
// Dependency rule: swai imports device, device/alloc and the standard
// library only.
//
// A worked example, the launch figures of section 4.4:
//
//	p := swai.Default()
//	fast := p.KLL(swai.FastLaunch, 0)               // 2.3 µs
//	traditional := p.KLL(swai.TraditionalLaunch, 0) // 883.6 µs
//
//	d, err := swai.New(p)
//	if err != nil { ... }
//	defer d.Close()
//	s := d.NewStream()
//	_ = s.Launch("empty", device.Cost{}, nil) // through the command buffer
//	_ = s.Synchronize(ctx)                    // about fast after the call
package swai
