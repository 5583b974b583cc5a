package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// progressWords name the work a progress line shows: what it is doing
// while it runs ("replaying"), what it did once every event is through
// ("replayed"), and what comes after, if anything.
type progressWords struct{ doing, did, then string }

var (
	replayWords = progressWords{"replaying", "replayed", "; writing the views"}
	copyWords   = progressWords{"copying", "copied", ""}
)

// progressPrinter shows a replay's progress on one line rewritten in
// place — events done, rate, time left — when w is a terminal, and returns
// nil otherwise: a log file or a pipe needs no progress bar, and a
// carriage return in one is noise.
func progressPrinter(w io.Writer) func(done, total int64) { return progressPrinterOf(w, replayWords) }

// progressPrinterOf is progressPrinter for the work words names.
func progressPrinterOf(w io.Writer, words progressWords) func(done, total int64) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	start := time.Now() // wall time: the operator's, as the rebuild's own
	return func(done, total int64) {
		// "\r" goes back to the start of the line, "\x1b[K" clears what
		// a longer line before left behind.
		fmt.Fprintf(w, "\r%s\x1b[K", words.line(done, total, time.Since(start)))
		if done >= total {
			fmt.Fprintln(w)
		}
	}
}

// line is progressLine in words.
func (words progressWords) line(done, total int64, elapsed time.Duration) string {
	if done >= total {
		return fmt.Sprintf("%s %s events in %s%s", words.did, thousands(total), elapsed.Round(100*time.Millisecond), words.then)
	}
	line := fmt.Sprintf("%s: %s/%s events (%d%%)", words.doing, thousands(done), thousands(total), done*100/total)
	if done <= 0 || elapsed <= 0 {
		return line
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(total-done) / rate * float64(time.Second))
	return fmt.Sprintf("%s, %s events/s, %s left", line, thousands(int64(rate)), left.Round(time.Second))
}

// thousands writes n with a comma between each group of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
