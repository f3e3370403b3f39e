package queues_test

import (
	"fmt"

	"github.com/pipert/pipert/queues"
)

func ExampleQueue() {
	var total int
	q, err := queues.New("sum", 0, func(v int) error {
		total += v // only the worker runs handlers: no lock needed
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for v := 1; v <= 100; v++ {
		if err := q.Push(v); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := q.Close(); err != nil { // drains, then stops the worker
		fmt.Println(err)
	}
	fmt.Println(total)
	// Output: 5050
}

func ExampleQueue_WaitTicket() {
	q, err := queues.New("launch", 8, func(name string) error {
		fmt.Println("launched", name)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer q.Close()
	_, _ = q.PushT("matmul")
	t, _ := q.PushT("reshape")
	_ = q.WaitTicket(t) // the barrier: reshape (and so matmul) has run
	fmt.Println("reshape done")
	// Output:
	// launched matmul
	// launched reshape
	// reshape done
}

func ExamplePipeline() {
	type kernel struct {
		name  string
		shape int
	}
	p, err := queues.NewPipeline([]string{"infer", "resize", "launch"}, []func(*kernel) error{
		func(k *kernel) error { k.shape = len(k.name); return nil }, // infer
		func(k *kernel) error { k.shape *= 2; return nil },          // resize
		func(k *kernel) error { fmt.Println(k.name, k.shape); return nil },
	}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"add", "softmax"} {
		if err := p.Push(&kernel{name: name}); err != nil {
			fmt.Println(err)
		}
	}
	if err := p.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// add 6
	// softmax 14
}
