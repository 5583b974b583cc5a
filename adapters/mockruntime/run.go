package mockruntime

import (
	"strconv"
	"strings"
	"time"

	"herd/domain"
)

// The mock runs nothing, but it reads a container's command as a shell
// would read a few simple ones, so that a pod can run to its end as a
// Job's pods do: `true`, `false`, `exit N`, `sleep N` and `echo …`,
// alone or joined by `;` or `&&`, as the command itself or as the script
// of `sh -c` (or bash, /bin/sh, /bin/bash). `sleep N` takes N seconds of
// herd's clock; the container ends with the status of what ran last.
// A container with no command (its image's entrypoint) or any other
// command runs until it is stopped, as the mock always ran pods.
// kubectl create job NAME --image=busybox -- sh -c "sleep 5; exit 1"
// makes a pod that fails after five seconds.

// containerRun is how one container runs on the mock: for how long, and
// with which exit code it ends; ends is false when it runs until it is
// stopped.
type containerRun struct {
	d    time.Duration
	code int32
	ends bool
}

// runOf reads a container's command and arguments.
func runOf(c domain.Container) containerRun {
	words := append(append([]string{}, c.Command...), c.Args...)
	if len(words) == 0 {
		return containerRun{}
	}
	script := strings.Join(words, " ")
	if len(words) >= 3 && isShell(words[0]) && words[1] == "-c" {
		script = strings.Join(words[2:], " ")
	}
	return runScript(script)
}

func isShell(w string) bool {
	switch w {
	case "sh", "/bin/sh", "bash", "/bin/bash":
		return true
	}
	return false
}

// runScript reads a script of the simple commands the mock knows; any
// other makes the container run until it is stopped.
func runScript(script string) containerRun {
	var out containerRun
	rest := strings.TrimSpace(script)
	for rest != "" {
		stmt, sep := rest, ""
		if i := strings.IndexAny(rest, ";&"); i >= 0 {
			stmt, sep = rest[:i], rest[i:i+1]
			rest = rest[i+1:]
			if sep == "&" {
				if !strings.HasPrefix(rest, "&") {
					return containerRun{} // a background job: not one of ours
				}
				rest = rest[1:]
			}
		} else {
			rest = ""
		}
		fields := strings.Fields(stmt)
		if len(fields) == 0 {
			continue
		}
		switch {
		case fields[0] == "true" && len(fields) == 1, fields[0] == "echo":
			out.code = 0
		case fields[0] == "false" && len(fields) == 1:
			out.code = 1
		case fields[0] == "sleep" && len(fields) == 2:
			secs, err := strconv.ParseFloat(fields[1], 64)
			if err != nil || secs < 0 {
				return containerRun{}
			}
			out.d += time.Duration(secs * float64(time.Second))
			out.code = 0
		case fields[0] == "exit" && len(fields) <= 2:
			out.code = 0
			if len(fields) == 2 {
				code, err := strconv.ParseInt(fields[1], 10, 32)
				if err != nil {
					return containerRun{}
				}
				out.code = int32(code & 0xff) //nolint:gosec // a shell's exit status is a byte
			}
			out.ends = true
			return out
		default:
			return containerRun{}
		}
		if sep == "&" && out.code != 0 {
			break // `false && …` ends there
		}
		rest = strings.TrimSpace(rest)
	}
	out.ends = true
	return out
}

// podRun is how a pod's containers run on the mock: they end once the
// last of them has, with the first code that was not 0; a pod with a
// container that runs until stopped never ends by itself.
func podRun(p domain.Pod) containerRun {
	var out containerRun
	for _, c := range p.Spec.Containers {
		r := runOf(c)
		if !r.ends {
			return containerRun{}
		}
		out.d = max(out.d, r.d)
		if out.code == 0 {
			out.code = r.code
		}
		out.ends = true
	}
	return out
}
