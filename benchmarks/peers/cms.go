package peers

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cmsSource is cms_backbone, the C program that finds the backbone of a
// CNF under decisions from scratch with CryptoMiniSat 5: a new solver per
// question, one call per feature not yet seen with both values.
//
//go:embed cms/cms_backbone.c
var cmsSource []byte

// BuildCMS writes cms_backbone into dir and compiles it with the system's
// C compiler against CryptoMiniSat (Debian's libcryptominisat5-dev),
// returning the program's path.
func BuildCMS(ctx context.Context, dir string) (string, error) {
	src := filepath.Join(dir, "cms_backbone.c")
	if err := os.WriteFile(src, cmsSource, 0o644); err != nil {
		return "", err
	}
	exe := filepath.Join(dir, "cms_backbone")
	out, err := exec.CommandContext(ctx, "cc", "-O2", "-o", exe, src, "-lcryptominisat5").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build cms_backbone (needs cc and libcryptominisat5-dev): %w: %s", err, bytes.TrimSpace(out))
	}
	return exe, nil
}

// CMSAnswer is cms_backbone's answer to one question: the forced
// literals (the decisions' own among them) or Unsat, its solver calls,
// and its time, the reading of the file apart.
type CMSAnswer struct {
	Forced  []int
	Unsat   bool
	Calls   int
	Elapsed time.Duration
}

// RunCMS asks the program BuildCMS built for the backbone of the DIMACS
// file path, whose variables 1..features are the features, under each
// list of decision literals of questions in turn, and returns the answers
// it gave before ctx ended (fewer than the questions then, and no error).
func RunCMS(ctx context.Context, exe, path string, features int, questions [][]int) ([]CMSAnswer, error) {
	cmd := exec.CommandContext(ctx, exe, path, strconv.Itoa(features))
	var in strings.Builder
	for _, q := range questions {
		for i, l := range q {
			if i > 0 {
				in.WriteByte(' ')
			}
			in.WriteString(strconv.Itoa(l))
		}
		in.WriteByte('\n')
	}
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var out []CMSAnswer
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var line struct {
			Forced  []int
			Unsat   bool
			Calls   int
			Seconds float64
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return out, fmt.Errorf("%s: cms_backbone: %v", filepath.Base(path), err)
		}
		out = append(out, CMSAnswer{Forced: line.Forced, Unsat: line.Unsat, Calls: line.Calls, Elapsed: time.Duration(line.Seconds * float64(time.Second))})
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("%s: cms_backbone: %w: %s", filepath.Base(path), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}
