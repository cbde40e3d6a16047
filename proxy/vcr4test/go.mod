module v4cert/proxy/vcr4test

go 1.26.8

require (
	gopkg.in/dnaeon/go-vcr.v4 v4.0.7
	v4cert v0.0.0
)

require (
	github.com/dnaeon/go-vcr/v2 v2.1.0 // indirect
	github.com/elazarl/goproxy v1.9.2 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.6 // indirect
	golang.org/x/net v0.56.0 // indirect
	golang.org/x/text v0.38.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace v4cert => ../..
