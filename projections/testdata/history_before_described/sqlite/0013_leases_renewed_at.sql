-- When herd recorded each lease's last renewal, by herd's clock, in unix
-- nanoseconds (0 when its renew time was never set): for a lease in
-- kube-node-lease it is its node's last heartbeat. A renewal of a node's
-- lease is one event in the lease's stream and writes this row only; the
-- health rules read the column when they seed their deadlines after a
-- start, so that a node whose kubelet only renews its lease is not taken
-- for silent. Rows of leases renewed before the column existed are filled
-- once from the log at start (leasesRenewedAt).
ALTER TABLE leases ADD COLUMN renewed_at INTEGER NOT NULL DEFAULT 0;
