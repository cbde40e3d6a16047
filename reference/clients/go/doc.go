// Package goclient proves that the platform's own Go API client provisions and
// reads through the reference unchanged. It is a module of its own so that the
// client's dependencies stay out of v4cert's.
package goclient
