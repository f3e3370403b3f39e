package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pipert/pipert/trace"
)

// fabricRun is the summary of one variant's modeled run in a trace written
// by pipebench moe -trace: track groups "VARIANT device N" (a stream, one
// track per block, flag sets) and "VARIANT fabric" (a track per link).
type fabricRun struct {
	Variant    string
	Devices    int
	MakespanNs int64
	BusyMaxNs  int64 // the busiest device's stream
	BusyMeanNs int64
	LinkMax    string // the busiest link
	LinkUtil   float64
	WaitNs     int64 // flag waits, summed over blocks
	Waits      int
	// Longest is the longest wait: who waited (device, block) for which
	// flag, and the device that set it.
	Longest struct {
		Ns             int64
		Flag           string
		Device, Setter int
		Block          string
	}
	// WaitedOn sums the waits per setting device, most first.
	WaitedOn []deviceWait
}

type deviceWait struct {
	Device int
	Ns     int64
}

// fabricRuns summarizes every fabric run of a parsed trace (none: the
// trace holds no pipebench moe run).
func fabricRuns(p *trace.Parsed) []fabricRun {
	type trk struct {
		variant string
		device  int // -1: the fabric group
		name    string
	}
	tracks := make([]trk, len(p.Tracks))
	byVariant := map[string]*fabricRun{}
	var order []string
	for i, t := range p.Tracks {
		tracks[i] = trk{device: -2}
		v, dev, ok := parseFabricGroup(t.Group)
		if !ok {
			continue
		}
		tracks[i] = trk{variant: v, device: dev, name: t.Name}
		if byVariant[v] == nil {
			byVariant[v] = &fabricRun{Variant: v}
			order = append(order, v)
		}
	}
	if len(order) == 0 {
		return nil
	}
	// flow ends: the setter's track of each flow id, by the waiter's
	// (track, ts)
	begin := map[uint64]int{}
	for _, ev := range p.Events {
		if ev.Kind == trace.EvFlowBegin {
			begin[ev.Flow] = ev.Track
		}
	}
	type at struct {
		track int
		ts    int64
	}
	setterAt := map[at]int{}
	for _, ev := range p.Events {
		if ev.Kind == trace.EvFlowEnd {
			if b, ok := begin[ev.Flow]; ok {
				setterAt[at{ev.Track, ev.TS}] = tracks[b].device
			}
		}
	}
	busy := map[string]map[int]int64{}
	links := map[string]map[string]int64{}
	waitedOn := map[string]map[int]int64{}
	for _, s := range p.Slices() {
		t := tracks[s.Track]
		r := byVariant[t.variant]
		if r == nil {
			continue
		}
		r.MakespanNs = max(r.MakespanNs, s.End)
		switch {
		case t.device == -1:
			if links[t.variant] == nil {
				links[t.variant] = map[string]int64{}
			}
			links[t.variant][t.name] += s.Dur()
		case t.name == "stream" && s.Depth == 0:
			if busy[t.variant] == nil {
				busy[t.variant] = map[int]int64{}
			}
			busy[t.variant][t.device] += s.Dur()
		case strings.HasPrefix(s.Name, "wait "):
			r.Waits++
			r.WaitNs += s.Dur()
			setter, ok := setterAt[at{s.Track, s.End}]
			if !ok {
				setter = -1
			}
			if waitedOn[t.variant] == nil {
				waitedOn[t.variant] = map[int]int64{}
			}
			waitedOn[t.variant][setter] += s.Dur()
			if s.Dur() > r.Longest.Ns {
				r.Longest.Ns, r.Longest.Flag = s.Dur(), strings.TrimPrefix(s.Name, "wait ")
				r.Longest.Device, r.Longest.Setter, r.Longest.Block = t.device, setter, t.name
			}
		}
	}
	out := make([]fabricRun, 0, len(order))
	for _, v := range order {
		r := byVariant[v]
		var sum int64
		for _, b := range busy[v] {
			r.BusyMaxNs = max(r.BusyMaxNs, b)
			sum += b
		}
		if r.Devices = len(busy[v]); r.Devices > 0 {
			r.BusyMeanNs = sum / int64(r.Devices)
		}
		names := make([]string, 0, len(links[v]))
		for n := range links[v] {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if u := float64(links[v][n]) / float64(max(r.MakespanNs, 1)); u > r.LinkUtil {
				r.LinkUtil, r.LinkMax = u, n
			}
		}
		for d, ns := range waitedOn[v] {
			r.WaitedOn = append(r.WaitedOn, deviceWait{Device: d, Ns: ns})
		}
		slices.SortFunc(r.WaitedOn, func(a, b deviceWait) int {
			if a.Ns != b.Ns {
				return int(b.Ns - a.Ns)
			}
			return a.Device - b.Device
		})
		out = append(out, *r)
	}
	return out
}

// parseFabricGroup splits "VARIANT device N" and "VARIANT fabric".
func parseFabricGroup(g string) (variant string, device int, ok bool) {
	if v, found := strings.CutSuffix(g, " fabric"); found && v != "" {
		return v, -1, true
	}
	i := strings.LastIndex(g, " device ")
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(g[i+len(" device "):])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return g[:i], n, true
}

func writeFabricRuns(w io.Writer, runs []fabricRun) {
	for _, r := range runs {
		fmt.Fprintf(w, "%s: %d devices, makespan %.1f µs; stream busy max %.1f µs, mean %.1f µs; busiest %s %.0f%%; flag waits %d, %.1f µs in all\n",
			r.Variant, r.Devices, float64(r.MakespanNs)/1e3, float64(r.BusyMaxNs)/1e3, float64(r.BusyMeanNs)/1e3,
			orDash(r.LinkMax), 100*r.LinkUtil, r.Waits, float64(r.WaitNs)/1e3)
		if r.Longest.Ns > 0 {
			fmt.Fprintf(w, "  longest wait %.2f µs: device %d %s waited for %s, set by device %d\n",
				float64(r.Longest.Ns)/1e3, r.Longest.Device, r.Longest.Block, r.Longest.Flag, r.Longest.Setter)
		}
		if len(r.WaitedOn) > 0 {
			var parts []string
			for _, d := range r.WaitedOn[:min(3, len(r.WaitedOn))] {
				parts = append(parts, fmt.Sprintf("device %d %.1f µs", d.Device, float64(d.Ns)/1e3))
			}
			fmt.Fprintf(w, "  waited on most: %s\n", strings.Join(parts, ", "))
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
