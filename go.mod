module github.com/pipert/pipert

go 1.26.0

require (
	github.com/klauspost/compress v1.20.3
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/rs/zerolog v1.35.1
	go.uber.org/atomic v1.12.0
	go.uber.org/goleak v1.3.0
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	golang.org/x/sync v0.24.0
	google.golang.org/protobuf v1.36.12
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
