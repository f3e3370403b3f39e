package ops

import (
	"fmt"
	"testing"

	"github.com/pipert/pipert/kernel"
)

// dataCase is an op that only moves elements. It runs twice: once on
// tensors numbering their elements 1, 2, … (0 is a fill the op writes
// itself, +0), which says where each output element comes from, and once on
// the same shapes filled with the special values; every output element
// must then be the bits of its source exactly, NaN payloads and signalling
// NaNs included.
type dataCase struct {
	op    string
	attrs kernel.Attrs
	// in builds the inputs; data(shape) makes a float tensor of the case's
	// dtype whose elements are numbered.
	in func(data func(shape ...int64) *kernel.Tensor) []*kernel.Tensor
}

func idx(v ...float64) *kernel.Tensor { return i64(shp(int64(len(v))), v...) }

var dataCases = []dataCase{
	{op: "Identity", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor { return []*kernel.Tensor{d(24)} }},
	{op: "Dropout", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor { return []*kernel.Tensor{d(24)} }},
	{op: "Reshape", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), idx(4, -1)}
	}},
	{op: "Flatten", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor { return []*kernel.Tensor{d(2, 3, 4)} }},
	{op: "Squeeze", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor { return []*kernel.Tensor{d(1, 6, 1, 4), idx(2)} }},
	{op: "Unsqueeze", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor { return []*kernel.Tensor{d(6, 4), idx(0, -1)} }},
	{op: "Transpose", attrs: kernel.Attrs{"perm": []int64{2, 0, 1}}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4)}
	}},
	{op: "Concat", attrs: kernel.Attrs{"axis": int64(1)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), d(2, 1, 4), d(2, 2, 4)}
	}},
	{op: "Split", attrs: kernel.Attrs{"axis": int64(2), "num_outputs": int64(2)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 5), idx(2, 3)}
	}},
	{op: "Slice", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 5), idx(-1, 0), idx(-6, 3), idx(2, 1), idx(-2, 2)}
	}},
	{op: "Expand", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor { return []*kernel.Tensor{d(3, 1), idx(2, 3, 4)} }},
	{op: "Tile", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor { return []*kernel.Tensor{d(2, 3), idx(2, 3)} }},
	{op: "Pad", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), idx(0, 1, 2, 1, 0, 1), d()} // the constant is a special value too
	}},
	{op: "Pad", attrs: kernel.Attrs{"mode": "reflect"}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), idx(0, 1, 2, 1, 1, 3)}
	}},
	{op: "Pad", attrs: kernel.Attrs{"mode": "edge"}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), idx(1, 0, 2, 0, 2, 3)}
	}},
	{op: "Gather", attrs: kernel.Attrs{"axis": int64(1)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), i64(shp(2, 2), 2, 0, -1, 1)}
	}},
	{op: "GatherElements", attrs: kernel.Attrs{"axis": int64(1)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 2), i64(shp(2, 2, 2), 2, 0, -1, 1, 0, 0, 1, 2)}
	}},
	{op: "GatherND", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), i64(shp(3, 2), 1, 2, 0, 0, 1, -3)}
	}},
	{op: "DepthToSpace", attrs: kernel.Attrs{"blocksize": int64(2)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(1, 8, 2, 3)}
	}},
	{op: "DepthToSpace", attrs: kernel.Attrs{"blocksize": int64(2), "mode": "CRD"}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(1, 8, 2, 3)}
	}},
	{op: "SpaceToDepth", attrs: kernel.Attrs{"blocksize": int64(2)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 2, 2, 4)}
	}},
	{op: "ReverseSequence", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(4, 2, 3), idx(3, 1)}
	}},
	{op: "Compress", attrs: kernel.Attrs{"axis": int64(1)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), tensor(kernel.Bool, shp(3), 1, 0, 1)}
	}},
	{op: "Trilu", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor { return []*kernel.Tensor{d(2, 3, 4)} }},
	{op: "Trilu", attrs: kernel.Attrs{"upper": int64(0)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 4, 3), idx(1)}
	}},
	{op: "Where", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{tensor(kernel.Bool, shp(3, 1), 1, 0, 1), d(3, 4), d(1, 4)}
	}},
	{op: "ScatterElements", attrs: kernel.Attrs{"axis": int64(1)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 2), i64(shp(2, 2, 2), 2, 0, -3, 1, 0, 0, 1, 2), d(2, 2, 2)}
	}},
	{op: "Scatter", attrs: kernel.Attrs{"axis": int64(0)}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(3, 4), i64(shp(1, 4), 2, 0, 1, 2), d(1, 4)}
	}},
	{op: "ScatterND", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(2, 3, 4), i64(shp(2, 2), 1, 2, 0, 0), d(2, 4)}
	}},
	{op: "OneHot", in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{i64(shp(2, 2), 0, 3, -1, 2), i64(shp(), 4), d(2)}
	}},
	// Resize and Upsample move elements in mode nearest.
	{op: "Resize", attrs: kernel.Attrs{"mode": "nearest"}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(1, 2, 2, 3), f32(shp(0)), f32(shp(4), 1, 1, 2, 1.5)}
	}},
	{op: "Upsample", attrs: kernel.Attrs{"mode": "nearest"}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(1, 2, 2, 3), f32(shp(4), 1, 1, 2, 3)}
	}},
	{op: "MaxUnpool", attrs: kernel.Attrs{"kernel_shape": []int64{2, 2}, "strides": []int64{2, 2}}, in: func(d func(...int64) *kernel.Tensor) []*kernel.Tensor {
		return []*kernel.Tensor{d(1, 2, 2, 2), i64(shp(1, 2, 2, 2), 0, 3, 9, 14, 1, 6, 8, 15)}
	}},
}

// TestSpecialDataMovement: every data-movement op keeps the bits of the
// special values it moves.
func TestSpecialDataMovement(t *testing.T) {
	for _, c := range dataCases {
		for _, dt := range sweepFloats {
			name := fmt.Sprintf("%s/%v", c.op, dt)
			if c.attrs != nil {
				name = fmt.Sprintf("%s%v/%v", c.op, c.attrs, dt)
			}
			bits := sweepBits(dt)
			// numbered: elements 1, 2, … across every data input;
			// special: element k of that numbering holds bits[(k-1) % n].
			build := func(numbered bool) []*kernel.Tensor {
				next := 1
				return c.in(func(shape ...int64) *kernel.Tensor {
					n := numel(shape)
					b := make([]uint64, n)
					for i := range b {
						if numbered {
							b[i] = refBits(dt, float64(next))
						} else {
							b[i] = bits[(next-1)%len(bits)]
						}
						next++
					}
					return bitsTensor(dt, shape, b)
				})
			}
			where, err := runOp(c.op, c.attrs, build(true)...)
			if err != nil {
				t.Errorf("%s: numbered: %v", name, err)
				continue
			}
			got, err := runOp(c.op, c.attrs, build(false)...)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			for o := range where {
				if where[o].DType != dt {
					continue // Dropout's mask
				}
				want := make([]uint64, where[o].NumElements())
				from := tensorBits(where[o])
				for i, f := range from {
					k := refValue(dt, f)
					switch {
					case k == 0:
						want[i] = 0 // the op's own fill, +0
					case k >= 1 && k == float64(int(k)):
						want[i] = bits[(int(k)-1)%len(bits)]
					default:
						t.Fatalf("%s: output %d element %d came from no input element: %s", name, o, i, showBits(dt, f))
					}
				}
				checkBits(t, fmt.Sprintf("%s output %d", name, o), got[o], dt, where[o].Shape, want, true, func(i int) string {
					return fmt.Sprintf("element %d from input element %s", i, showBits(dt, from[i]))
				})
			}
		}
	}
}
