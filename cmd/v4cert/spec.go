package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/v4cert/v4cert/schemas"
	"github.com/v4cert/v4cert/specs"
)

func spec(args []string) error {
	fs_ := newFlagSet("spec")
	openapi := fs_.Bool("openapi", false, "print the rulebook and schemas as one OpenAPI 3.1 document")
	rules := fs_.Bool("rules", false, "print every rule: id, endpoint, what it says")
	if err := fs_.Parse(args); err != nil {
		return usageError{err}
	}
	book := specs.Default()
	switch {
	case *openapi:
		out, err := book.OpenAPIFromFS(version, schemas.FS())
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(append(out, '\n'))
		return err
	case *rules:
		for _, r := range book.Rules {
			fmt.Printf("%-40s %-32s %s\n", r.ID, r.Endpoint, r.Says)
		}
		return nil
	}
	areas := map[string][2]int{}
	for _, e := range book.Endpoints {
		a := areas[e.Area]
		a[0]++
		areas[e.Area] = a
	}
	for _, r := range book.Rules {
		a := areas[r.Area]
		a[1]++
		areas[r.Area] = a
	}
	names := make([]string, 0, len(areas))
	for n := range areas {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Printf("rulebook %s: %d endpoints, %d rules\n", book.Digest, len(book.Endpoints), len(book.Rules))
	for _, n := range names {
		fmt.Printf("  %-18s %3d endpoints %4d rules\n", n, areas[n][0], areas[n][1])
	}
	return nil
}
