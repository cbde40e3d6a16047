// Package vcr4test proves that cassettes v4cert's proxy records in format 2
// replay through go-vcr v4's own recorder (gopkg.in/dnaeon/go-vcr.v4), and
// that cassettes go-vcr v4 saves are read by v4cert's replay and validate.
// It is a module of its own so go-vcr v4 and its YAML library stay out of
// v4cert's dependencies.
package vcr4test
