package moe_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/pipert/pipert/moe"
)

// The variants of the ladder compute, on real data across eight
// simulated ranks, what the single-device reference computes, bit for bit
// (here the first three).
func ExampleRun() {
	in, err := moe.Generate(moe.Small, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	want := moe.Reference(in)
	for _, v := range moe.Variants()[:3] {
		got, err := moe.Run(context.Background(), v, in, moe.Options{})
		if err != nil {
			fmt.Println(v, err)
			return
		}
		same := len(got) == len(want)
		for r := range got {
			same = same && slices.Equal(got[r], want[r])
		}
		fmt.Println(v, "ranks:", len(got), "equal to the reference:", same)
	}
	// Output:
	// reference ranks: 8 equal to the reference: true
	// sorted ranks: 8 equal to the reference: true
	// p2p-rank ranks: 8 equal to the reference: true
}
