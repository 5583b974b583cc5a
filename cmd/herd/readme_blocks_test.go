package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The checks a README block's marker may ask for. Every fenced block of
// the README is preceded by a marker, `<!-- check: KIND ... -->`, saying
// whether a test runs it and how, so that a block that claims to run
// cannot quietly stop running.
const (
	// checkDemo: each line runs against herd serve --demo 6, the
	// quickstart's herd (TestQuickstartRunsAsWritten).
	checkDemo = "demo"
	// checkScript: the block runs whole as a bash script in an empty
	// folder with bin/herd in it, on a fresh herd of its own
	// (TestReadmeScriptsRunAsWritten). "script, not as root" runs it as
	// an unprivileged user when the tests run as root.
	checkScript = "script"
	// checkExample: not run; the marker says why in parentheses (a real
	// illumos host, a real kubelet, hosts of the reader's own).
	checkExample = "example"
)

// readmeBlock is one fenced block of the README and its marker.
type readmeBlock struct {
	line    int    // the line of its opening fence, from 1
	lang    string // what follows the opening fence: sh, yaml, or nothing
	check   string // checkDemo, checkScript or checkExample
	notRoot bool   // "script, not as root"
	reason  string // an example's reason, in its parentheses
	body    string
}

// lines are the block's commands: its non-empty lines that are not
// comments, each with a continuation (a trailing backslash) joined to
// the next.
func (b readmeBlock) lines() []string {
	var lines []string
	var cont string
	for line := range strings.SplitSeq(b.body, "\n") {
		line = strings.TrimSpace(line)
		if cont != "" {
			line, cont = cont+" "+line, ""
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cont = strings.TrimSuffix(line, `\`)
			continue
		}
		lines = append(lines, line)
	}
	return lines
}

var readmeMarker = regexp.MustCompile(`^<!-- check: (demo|script|example)(, not as root)?(?: \((.+)\))? -->$`)

// readmeBlocks reads the README's fenced blocks, failing the test for a
// block without a marker and for an example that does not say why it is
// not run.
func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	var blocks []readmeBlock
	for i := 0; i < len(lines); i++ {
		fence, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		b := readmeBlock{line: i + 1, lang: strings.TrimSpace(fence)}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if end == len(lines) {
			t.Fatalf("README.md:%d: a block that never closes", b.line)
		}
		b.body = strings.Join(lines[i+1:end], "\n")
		prev := ""
		if i > 0 {
			prev = strings.TrimSpace(lines[i-1])
		}
		m := readmeMarker.FindStringSubmatch(prev)
		switch {
		case m == nil:
			t.Errorf("README.md:%d: a block without a `<!-- check: demo|script|example (why) -->` line right above it", b.line)
		case m[1] == checkExample && m[3] == "":
			t.Errorf("README.md:%d: an example must say in parentheses why no test runs it", b.line)
		default:
			b.check, b.notRoot, b.reason = m[1], m[2] != "", m[3]
		}
		blocks = append(blocks, b)
		i = end
	}
	return blocks
}

// TestEveryReadmeBlockSaysWhetherItRuns holds every block of the README to
// a marker, and the README to a table of contents that names each of its
// sections.
func TestEveryReadmeBlockSaysWhetherItRuns(t *testing.T) {
	blocks := readmeBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("no blocks found in README.md")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	toc, _, ok := strings.Cut(string(readme), "\n## Two commands")
	if !ok || !strings.Contains(toc, "## Contents") {
		t.Fatal("README.md has no `## Contents` before `## Two commands`")
	}
	inBlock := false
	for line := range strings.SplitSeq(string(readme), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
		}
		title, ok := strings.CutPrefix(line, "## ")
		if !ok {
			title, ok = strings.CutPrefix(line, "### ")
		}
		if inBlock || !ok || title == "Contents" {
			continue
		}
		if !strings.Contains(toc, "["+title+"](#"+anchor(title)+")") {
			t.Errorf("the table of contents lacks [%s](#%s)", title, anchor(title))
		}
	}
}

// anchor is GitHub's anchor for a heading: lower case, spaces to dashes,
// punctuation other than dashes and underscores dropped.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
