module v4cert/reference/clients/go

go 1.26.8

require (
	gitlab.com/gitlab-org/api/client-go v1.46.0
	v4cert v0.0.0
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	go.etcd.io/bbolt v1.4.3 // indirect
	golang.org/x/oauth2 v0.34.0 // indirect
	golang.org/x/sys v0.46.0 // indirect
	golang.org/x/time v0.14.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace v4cert => ../../..
