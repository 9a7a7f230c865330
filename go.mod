module github.com/echomq/echomq

go 1.26

require (
	github.com/alicebob/miniredis/v2 v2.40.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/valkey-io/valkey-go v1.0.79 // indirect
	github.com/yuin/gopher-lua v1.1.1 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
