-- The addresses held under a pod's name, whatever the pod's uid: when a
-- pod is made again under its name (a StatefulSet's), the address of the
-- one before goes back as soon as its name is reconciled.
CREATE INDEX ip_allocations_by_name ON ip_allocations (namespace, name);
