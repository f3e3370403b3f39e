package cache_test

import (
	"fmt"

	"github.com/pipert/pipert/cache"
)

// A node's local cache: two slots, the least recently used one evicted.
func ExampleLRU() {
	c := cache.NewLRU(2)
	put := func(key, data string, workspace int64) {
		c.Put(cache.Hash([]byte(key)), []byte(key), []byte(data), workspace)
	}
	get := func(key string) {
		data, ws, ok := c.Get(cache.Hash([]byte(key)), []byte(key), nil)
		fmt.Printf("%s: %q %d %v\n", key, data, ws, ok)
	}
	put("f32[8,8]", "tile 8", 64)
	put("f32[16,16]", "tile 16", 256)
	get("f32[8,8]")                    // now the most recently used
	put("f32[32,32]", "tile 32", 1024) // evicts f32[16,16]
	get("f32[16,16]")
	get("f32[32,32]")
	// Output:
	// f32[8,8]: "tile 8" 64 true
	// f32[16,16]: "" 0 false
	// f32[32,32]: "tile 32" 1024 true
}

// The global cache computes a missing tiling once per key, however many
// callers (executables, goroutines) ask for it.
func ExampleOp_Fill() {
	g := cache.NewGlobal(4)
	matmul := g.Op("MatMul")
	key := []byte("f32[64,64]x[64,64]")
	for range 3 {
		data, ws, computed, err := matmul.Fill(cache.Hash(key), key, nil, func(dst []byte) (cache.Value, error) {
			return cache.Value{Data: append(dst[:0], "blocks of 16"...), Workspace: 4096}, nil
		})
		fmt.Printf("%q %d computed=%v err=%v\n", data, ws, computed, err)
	}
	fmt.Printf("%+v\n", g.Stats())
	// Output:
	// "blocks of 16" 4096 computed=true err=<nil>
	// "blocks of 16" 4096 computed=false err=<nil>
	// "blocks of 16" 4096 computed=false err=<nil>
	// {Hits:2 Misses:1 Computed:1}
}
