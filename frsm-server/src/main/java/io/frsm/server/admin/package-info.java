/**
 * The node's side of {@code frsm admin}: admin commands arriving on the client protocol (they need
 * the admin role, checked by the transport), answered from the node's own state and the cluster's
 * records in ZooKeeper (docs/OPERATIONS.md "Membership changes", docs/formats/wire.md "Admin").
 */
package io.frsm.server.admin;
