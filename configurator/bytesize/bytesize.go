// Package bytesize reads and writes amounts of memory for people: flags
// such as -budget 512M or -cache 2G, and messages such as "1.5 GiB". Every
// command and package of the project uses it, so a size reads the same
// everywhere.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Size is a number of bytes. As a flag.Value it accepts a whole number with
// an optional binary suffix, K, M, G or T, optionally followed by "iB" or
// "B", in either case: 512M, 8G, 2GiB, 65536.
type Size int64

// String writes the size as Format does.
func (s *Size) String() string { return Format(int64(*s)) }

// Set parses a size, as flag.Value asks.
func (s *Size) Set(v string) error {
	n, err := Parse(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}

// Parse reads a size with an optional binary suffix (see Size).
func Parse(v string) (int64, error) {
	t := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(v)), "B")
	t = strings.TrimSuffix(t, "I")
	mult := int64(1)
	if k := len(t); k > 0 {
		// K, M, G and T are 1024 to the first to the fourth power.
		if p := strings.IndexByte("KMGT", t[k-1]); p >= 0 {
			mult, t = 1<<(10*(p+1)), t[:k-1]
		}
	}
	x, err := strconv.ParseInt(t, 10, 64)
	if err != nil || x < 0 || x > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size in bytes (like 512M or 2G)", v)
	}
	return x * mult, nil
}

// Format writes n bytes with a binary unit and at most one decimal, the
// decimal dropped when it is zero: 900 B, 12 KiB, 1.5 GiB.
func Format(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i]
}
