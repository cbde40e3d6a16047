// Package openapitest validates `v4cert spec --openapi` with kin-openapi
// (github.com/getkin/kin-openapi), the OpenAPI library Go generators and
// request validators build on, and checks that the reference's own answers
// satisfy the exported document. It is a module of its own so kin-openapi
// and its dependencies stay out of v4cert's.
package openapitest
