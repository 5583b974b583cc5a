package domain

// PodFrom is From for pods: a command made from the pod as it stands
// inside the unit of work (a status report checked against the pod, a
// step of its termination for the pod it still is).
type PodFrom = From[Pod, PodCommand]
