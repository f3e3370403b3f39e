package hostmem

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"syscall"
)

// systemAvailable reads MemAvailable from /proc/meminfo and, when the
// process runs in a cgroup (v2) with a memory limit, bounds it by what the
// limit leaves; under a limit on its address space (ulimit -v), by what
// that leaves of it.
func systemAvailable() (int64, bool) {
	avail, ok := procField("/proc/meminfo", "MemAvailable:")
	if !ok {
		return 0, false
	}
	if limit, ok := cgroupFile("/sys/fs/cgroup/memory.max"); ok {
		if used, ok := cgroupFile("/sys/fs/cgroup/memory.current"); ok {
			avail = min(avail, max(limit-used, 0))
		}
	}
	if left, ok := addressSpaceLeft(); ok {
		avail = min(avail, left)
	}
	return avail, true
}

// addressSpaceLeft is what RLIMIT_AS leaves of the process's address
// space beyond its size now (VmSize of /proc/self/status), when it is
// limited.
func addressSpaceLeft() (int64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur == ^uint64(0) || rl.Cur > math.MaxInt64 {
		return 0, false
	}
	size, ok := procField("/proc/self/status", "VmSize:")
	if !ok {
		return 0, false
	}
	return max(int64(rl.Cur)-size, 0), true
}

// procField is meminfoField of the file at path.
func procField(path, key string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	return meminfoField(b, key)
}

// meminfoField returns the value of the /proc/meminfo line that starts
// with key, in bytes (the file gives kB).
func meminfoField(b []byte, key string) (int64, bool) {
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		rest, ok := bytes.CutPrefix(line, []byte(key))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb < 0 || kb > 1<<53 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// cgroupFile reads a cgroup v2 memory file holding one number of bytes; it
// reports false for "max" (no limit), a missing file or anything else.
func cgroupFile(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}
