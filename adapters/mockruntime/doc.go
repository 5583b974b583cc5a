// Package mockruntime is an in-memory runtime for herd's pods, for hosts
// without zones: it provisions, starts, stops and removes pods as a zone
// runtime would, on herd's injected clock, without running anything. herd
// serve runs the pods of nodes without an agent of their own on it, and
// tests use it to see what happened to a pod.
//
// A pod stops a configurable time after it is asked to shut down (at once
// by default); the annotation mock.herd.dev/shutdown-seconds sets that time
// per pod, and a negative value makes the pod ignore shutdown so that it
// has to be halted.
//
// A container whose command is one of the few simple ones the mock reads
// (true, false, exit N, sleep N, echo, joined by ; or &&, alone or as the
// script of sh -c) runs to its end on herd's clock, and the pod exits
// once all its containers have (run.go): what a Job's pods need to
// succeed or fail. Any other container runs until it is stopped.
//
// It imports only the domain.
package mockruntime
