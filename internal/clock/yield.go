package clock

import _ "unsafe" // go:linkname

// yield is the yield of WaitUntil's spin: runtime.goyield, which the
// runtime keeps for the packages that link to it (go.dev/issue/67401). It
// is runtime.Gosched onto the caller's own processor's run queue: other
// goroutines queued there run first, and, unlike Gosched, it wakes no idle
// processor. A goroutine waiting for the device spins alone while the
// other processor idles (the end of every run, a KBK run throughout), and
// Gosched would start that processor's OS thread on every turn; each
// wake-up lets the kernel queue the woken thread on the spinner's own CPU,
// where one of the two threads then waits, runnable, for milliseconds
// while the other CPU idles, holding its processor (docs/ARCHITECTURE.md,
// Time). The queues keep Gosched: with more stage goroutines than
// processors, the global run queue is what spreads them over both.
//
//go:linkname yield runtime.goyield
func yield()
