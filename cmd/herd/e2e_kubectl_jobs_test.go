package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// failingJobManifest is a Job whose one pod exits 3 at once: with a
// backoff limit of 1 it fails after its second pod, 10 s of backoff
// later.
const failingJobManifest = `apiVersion: batch/v1
kind: Job
metadata:
  name: doomed
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: doomed
        image: busybox
        command: ["sh", "-c", "exit 3"]
`

// TestKubectlJobs runs kubectl's Job commands against herd serve --demo:
// kubectl create job makes a Job whose pod runs to completion on the
// demo's mock runtime, so that kubectl wait --for=condition=complete
// returns; kubectl get jobs prints Kubernetes' columns; a Job whose pods
// fail is Failed with BackoffLimitExceeded after its backoff limit, and
// herd pod why says its second pod was made for the first's failure;
// and kubectl delete job takes the Job's pods with it.
func TestKubectlJobs(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)

	if out := kc.must(t, "create", "job", "pi", "--image=busybox", "--", "sh", "-c", "sleep 1; exit 0"); !strings.Contains(out, "job.batch/pi created") {
		t.Fatalf("kubectl create job said %q", out)
	}
	kc.wait(t, "pi completes", "--for=condition=complete", "job/pi")
	if out := kc.must(t, "get", "job", "pi", "-o", "jsonpath={.status.succeeded} {.status.failed} {.status.conditions[*].type}"); out != "1  SuccessCriteriaMet Complete" {
		t.Errorf("pi's status: %q, want 1 success, no failure, SuccessCriteriaMet then Complete", out)
	}
	if out := kc.must(t, "get", "pods", "-l", "job-name=pi", "-o", "jsonpath={.items[*].status.phase}"); out != "Succeeded" {
		t.Errorf("pi's pods: %q, want one Succeeded", out)
	}
	header, rows := table(t, kc.must(t, "get", "jobs"))
	if !slices.Equal(header, []string{"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"}) || len(rows) != 1 ||
		rows[0][0] != "pi" || rows[0][1] != "Complete" || rows[0][2] != "1/1" {
		t.Errorf("kubectl get jobs: %q %q", header, rows)
	}
	header, _ = table(t, kc.must(t, "get", "jobs", "-o", "wide"))
	if len(header) < 8 || !slices.Equal(header[5:], []string{"CONTAINERS", "IMAGES", "SELECTOR"}) {
		t.Errorf("kubectl get jobs -o wide: %q", header)
	}
	if out := kc.must(t, "get", "all"); !strings.Contains(out, "job.batch/pi") {
		t.Errorf("kubectl get all lists no Job:\n%s", out)
	}

	path := filepath.Join(t.TempDir(), "doomed.yaml")
	if err := os.WriteFile(path, []byte(failingJobManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	kc.must(t, "create", "-f", path)
	kc.wait(t, "doomed fails", "--for=condition=failed", "job/doomed")
	if out := kc.must(t, "get", "job", "doomed", "-o", `jsonpath={.status.failed} {.status.conditions[?(@.type=="Failed")].reason}`); out != "2 BackoffLimitExceeded" {
		t.Errorf("doomed's status: %q, want 2 failures and BackoffLimitExceeded", out)
	}
	// herd pod why says of the second pod that it failed, and that it was
	// made because the Job counted the first one's failure.
	pods := strings.Fields(kc.must(t, "get", "pods", "-l", "job-name=doomed", "--sort-by=.metadata.creationTimestamp", "-o", "jsonpath={.items[*].metadata.name}"))
	if len(pods) != 2 {
		t.Fatalf("doomed's pods: %v, want 2", pods)
	}
	why := mustHerd(t, "pod", "why", pods[1], "--server", srv.URL).Stdout
	for _, want := range []string{"Failed since ", "created at ", "made so by PodCreated", "by system:herd:job (pod/default/" + pods[1],
		"controlled by Job doomed", "because JobPodsCounted", "(job/default/doomed, ", "counted 1 failed", "bound to "} {
		if !strings.Contains(why, want) {
			t.Errorf("herd pod why %s says no %q:\n%s", pods[1], want, why)
		}
	}
	// A pod named as herd prints it, NAMESPACE/NAME, is the same pod.
	if again := mustHerd(t, "pod", "why", "default/"+pods[1], "--server", srv.URL).Stdout; again != why {
		t.Errorf("herd pod why default/%s:\n%s\nwant what herd pod why %s said:\n%s", pods[1], again, pods[1], why)
	}

	if out := kc.must(t, "delete", "job", "pi"); !strings.Contains(out, `job.batch "pi" deleted`) {
		t.Errorf("kubectl delete said %q", out)
	}
	eventually(t, 30*time.Second, func() error {
		if got := strings.Fields(kc.must(t, "get", "pods", "-l", "job-name=pi", "-o", "name")); len(got) != 0 {
			return fmt.Errorf("a deleted Job's pods: %v, want none", got)
		}
		return nil
	})
}

// indexedJobManifest is an Indexed Job of three completions, two pods at
// a time, each pod exiting 0 after a second.
const indexedJobManifest = `apiVersion: batch/v1
kind: Job
metadata:
  name: shards
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: shard
        image: busybox
        command: ["sh", "-c", "sleep 1; exit 0"]
`

// TestKubectlIndexedJob: an Indexed Job made with kubectl runs one pod
// for each index, each naming its index in its name, annotation and
// label, and is Complete with kubectl's "Completed Indexes" 0-2.
func TestKubectlIndexedJob(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)
	path := filepath.Join(t.TempDir(), "shards.yaml")
	writeFile(t, path, []byte(indexedJobManifest))
	kc.must(t, "apply", "-f", path)
	kc.wait(t, "shards completes", "--for=condition=complete", "job/shards")
	if out := kc.must(t, "get", "job", "shards", "-o", "jsonpath={.spec.completionMode} {.status.succeeded} {.status.completedIndexes}"); out != "Indexed 3 0-2" {
		t.Errorf("shards: %q, want Indexed, 3 succeeded, indexes 0-2", out)
	}
	out := kc.must(t, "get", "pods", "-l", "job-name=shards", "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.batch\.kubernetes\.io/job-completion-index} {.metadata.labels.batch\.kubernetes\.io/job-completion-index}{"\n"}{end}`)
	var indexes []string
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != f[2] || !strings.HasPrefix(f[0], "shards-"+f[1]+"-") {
			t.Errorf("pod %q: want its name, annotation and label to say one index", line)
			continue
		}
		indexes = append(indexes, f[1])
	}
	slices.Sort(indexes)
	if !slices.Equal(indexes, []string{"0", "1", "2"}) {
		t.Errorf("the pods' indexes: %v, want 0, 1 and 2", indexes)
	}
	// Each pod's container reads its index from JOB_COMPLETION_INDEX,
	// and the pod is called JOB-INDEX, as Kubernetes makes them.
	out = kc.must(t, "get", "pods", "-l", "job-name=shards,batch.kubernetes.io/job-completion-index=1", "-o",
		`jsonpath={.items[0].spec.hostname} {.items[0].spec.containers[0].env[?(@.name=="JOB_COMPLETION_INDEX")].valueFrom.fieldRef.fieldPath}`)
	if out != "shards-1 metadata.labels['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("index 1's pod: %q, want hostname shards-1 and JOB_COMPLETION_INDEX from its label", out)
	}
	out = kc.must(t, "describe", "job", "shards")
	if words := strings.Join(strings.Fields(out), " "); !strings.Contains(words, "Completion Mode: Indexed") || !strings.Contains(words, "Completed Indexes: 0-2") {
		t.Errorf("kubectl describe job shards says no Indexed mode or completed indexes:\n%s", out)
	}

	// A status that kube-apiserver refuses, written through the status
	// subresource, is refused in its words and changes nothing.
	version := kc.must(t, "get", "job", "shards", "-o", "jsonpath={.metadata.resourceVersion}")
	for patch, want := range map[string]string{
		`{"status":{"completedIndexes":"x"}}`:   `status.completedIndexes: Invalid value: "x": error parsing completedIndexes`,
		`{"status":{"completedIndexes":"0-3"}}`: "index 3 is not below the Job's 3 completions",
		`{"status":{"active":1,"ready":2}}`:     "status.ready: Invalid value: \"2\": cannot set more ready pods than active",
	} {
		res := kc.run(t, "patch", "job", "shards", "--subresource=status", "--type=merge", "-p", patch)
		if res.Code == 0 || !strings.Contains(res.Stderr, "is invalid") || !strings.Contains(res.Stderr, want) {
			t.Errorf("kubectl patch --subresource=status %s: exit %d, %q; want it refused with %q", patch, res.Code, res.Stderr, want)
		}
	}
	if again := kc.must(t, "get", "job", "shards", "-o", "jsonpath={.metadata.resourceVersion} {.status.completedIndexes}"); again != version+" 0-2" {
		t.Errorf("after refused status patches the Job is at %q, want %q: unchanged", again, version+" 0-2")
	}
}

// wait runs kubectl wait with args until it succeeds, for at most two
// minutes: each run waits at most 20 s, inside the commands' own limit.
func (k kubectl) wait(t *testing.T, what string, args ...string) {
	t.Helper()
	eventually(t, 120*time.Second, func() error {
		res := run(t, k.env, "kubectl", append([]string{"--server", k.base, "wait", "--timeout=20s"}, args...)...)
		if res.Code != 0 {
			return fmt.Errorf("%s: kubectl wait exit %d: %s%s", what, res.Code, res.Stdout, res.Stderr)
		}
		return nil
	})
}

// policyJobManifest is a Job whose pods exit 42, which its pod failure
// policy makes fatal at once, whatever its backoff limit, and whose
// evicted pods it would not count.
const policyJobManifest = `apiVersion: batch/v1
kind: Job
metadata:
  name: strict
spec:
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "sleep 1; exit 42"]
`

// TestKubectlJobPodFailurePolicy: a Job applied with a pod failure
// policy keeps it, and its first pod's exit code 42 fails it at once
// with reason PodFailurePolicy and Kubernetes' message, six retries
// left unused; the policy cannot change afterwards.
func TestKubectlJobPodFailurePolicy(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)
	path := filepath.Join(t.TempDir(), "strict.yaml")
	writeFile(t, path, []byte(policyJobManifest))
	kc.must(t, "apply", "-f", path)
	if out := kc.must(t, "get", "job", "strict", "-o", "jsonpath={.spec.podFailurePolicy.rules[*].action} {.spec.podFailurePolicy.rules[1].onPodConditions[0].status}"); out != "FailJob Ignore True" {
		t.Errorf("the Job's policy: %q, want FailJob and Ignore, the pattern's status True", out)
	}
	kc.wait(t, "strict fails", "--for=condition=failed", "job/strict")
	out := kc.must(t, "get", "job", "strict", "-o", `jsonpath={.status.failed} {.status.conditions[?(@.type=="Failed")].reason}|{.status.conditions[?(@.type=="Failed")].message}`)
	reasons, message, _ := strings.Cut(out, "|")
	if reasons != "1 PodFailurePolicy" || !strings.HasPrefix(message, "Container main for pod default/strict-") ||
		!strings.HasSuffix(message, " failed with exit code 42 matching FailJob rule at index 0") {
		t.Errorf("strict's status: %q, want 1 failure, PodFailurePolicy, and the rule's message", out)
	}
	if pods := strings.Fields(kc.must(t, "get", "pods", "-l", "job-name=strict", "-o", "name")); len(pods) != 1 {
		t.Errorf("strict's pods: %v, want only the first: the policy left no retry", pods)
	}
	// The policy is fixed once the Job exists, as in batch/v1.
	res := kc.run(t, "patch", "job", "strict", "--type=merge", "-p", `{"spec":{"podFailurePolicy":{"rules":[]}}}`)
	if res.Code == 0 || !strings.Contains(res.Stderr, "spec.podFailurePolicy: Invalid value: field is immutable") {
		t.Errorf("kubectl patch of the policy: exit %d, %q; want it refused as immutable", res.Code, res.Stderr)
	}
}
