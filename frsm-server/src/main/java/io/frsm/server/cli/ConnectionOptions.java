package io.frsm.server.cli;

import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;

/**
 * How {@code frsm cli} and {@code frsm admin} reach a cluster (a picocli mixin, one help text for
 * both): its nodes from {@code --seeds} or from the registrations in {@code --zookeeper}, the
 * cluster id, and mutual TLS files or {@code --insecure}. Options inherit into the subcommands.
 */
final class ConnectionOptions {
  @Option(
      names = "--seeds",
      paramLabel = "HOST:PORT[,HOST:PORT...]",
      scope = ScopeType.INHERIT,
      description =
          "Client addresses of some of the cluster's nodes: the others are learned from them.")
  String seeds;

  @Option(
      names = "--zookeeper",
      paramLabel = "HOST:PORT",
      scope = ScopeType.INHERIT,
      description =
          "The cluster's ZooKeeper: the registered nodes' addresses are read there (cli ring and"
              + " leader need it).")
  String zookeeper;

  @Option(
      names = "--zookeeper-credential",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description =
          "With --zookeeper: the file of one line user:password to authenticate to ZooKeeper with"
              + " (the nodes' zookeeper.readerCredentialFile or credentialFile); needed unless the"
              + " cluster runs with security.insecure: true.")
  Path zookeeperCredential;

  @Option(
      names = "--cluster",
      paramLabel = "ID",
      defaultValue = "frsm",
      scope = ScopeType.INHERIT,
      description = "The cluster id (default: ${DEFAULT-VALUE}; frsm local's: local).")
  String cluster;

  @Option(
      names = "--ca",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description = "PEM: the CAs whose node certificates to trust (with --cert and --key).")
  Path caBundle;

  @Option(
      names = "--cert",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description =
          "PEM: the client certificate (frsm://client/<name>?cluster=...&roles=...; admin needs"
              + " the admin role).")
  Path certificateChain;

  @Option(
      names = "--key",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description = "PEM: the certificate's private key, unencrypted PKCS#8.")
  Path privateKey;

  @Option(
      names = "--insecure",
      scope = ScopeType.INHERIT,
      description = "Plaintext, for a cluster with security.insecure: true (instead of --ca ...).")
  boolean insecure;

  /** Exactly one of --seeds and --zookeeper; otherwise a usage error of {@code command}. */
  void requireOneSource(CommandLine command) {
    if ((seeds == null) == (zookeeper == null)) {
      throw new ParameterException(command, "give --seeds or --zookeeper (one of them)");
    }
  }

  /**
   * Whether to speak plaintext ({@code --insecure}) rather than mutual TLS with the three files:
   * exactly one of them is given, otherwise a usage error of {@code command}.
   */
  boolean plaintext(CommandLine command) {
    boolean anyFile = caBundle != null || certificateChain != null || privateKey != null;
    if (insecure && anyFile) {
      throw new ParameterException(command, "--insecure excludes --ca, --cert and --key");
    }
    if (insecure) {
      return true;
    }
    if (caBundle == null || certificateChain == null || privateKey == null) {
      throw new ParameterException(
          command,
          "--ca, --cert and --key are needed (the nodes speak mutual TLS), or --insecure for a"
              + " plaintext cluster");
    }
    return false;
  }
}
