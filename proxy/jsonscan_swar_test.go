package proxy

import "testing"

// TestSpecialIn holds the eight-byte test to the byte table: for every byte
// at every position among plain neighbours, it must say yes whenever the
// table says the byte ends a run.
func TestSpecialIn(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			x := uint64(0)
			for i := 7; i >= 0; i-- {
				x = x<<8 | uint64(b[i])
			}
			if !plainByte[c] && !specialIn(x) {
				t.Fatalf("byte %#x at %d: not seen as special", c, pos)
			}
			if plainByte[c] && specialIn(x) {
				t.Fatalf("byte %#x at %d among plain ones: seen as special", c, pos)
			}
		}
	}
}

// TestSpecialIn2: the sixteen-byte test is the eight-byte one of each word.
func TestSpecialIn2(t *testing.T) {
	const plain = 0x6867666564636261 // "abcdefgh"
	for pos := range 8 {
		for c := range 256 {
			x := uint64(plain)&^(0xff<<(8*pos)) | uint64(c)<<(8*pos)
			if specialIn2(x, plain) != specialIn(x) || specialIn2(plain, x) != specialIn(x) {
				t.Fatalf("byte %#x at %d: the two tests disagree", c, pos)
			}
		}
	}
}
