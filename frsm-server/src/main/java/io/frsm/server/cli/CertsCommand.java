package io.frsm.server.cli;

import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.certs.CertificateAuthority;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code frsm certs}: a CA and node and client certificates for a cluster, in one directory
 * (docs/OPERATIONS.md "Security"). Reuses the CA found there, so it can be run again to add nodes
 * or clients. Meant for test and small clusters; an organisation's own CA works as well, as long as
 * its certificates carry the identity URIs.
 */
@Command(
    name = "certs",
    description = {
      "A CA and node/client certificates for a cluster, as PEM files in one directory.",
      "Reuses DIR/ca.pem and DIR/ca-key.pem if they exist (keep ca-key.pem off the nodes)."
    })
final class CertsCommand implements Callable<Integer> {
  @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Where the files go.")
  Path dir;

  @Option(
      names = "--cluster",
      required = true,
      paramLabel = "ID",
      description = "The cluster id the certificates are for (cluster.id).")
  String cluster;

  @Option(
      names = "--nodes",
      paramLabel = "N",
      defaultValue = "0",
      description = "Certificates for nodes 1..N (node-<id>.pem, node-<id>-key.pem).")
  int nodes;

  @Option(
      names = "--client",
      paramLabel = "NAME=ROLES",
      description =
          "A client certificate with roles read, write and/or admin, e.g. app=read,write"
              + " (client-<name>.pem); repeatable.")
  List<String> clients = new ArrayList<>();

  @Option(
      names = "--days",
      paramLabel = "D",
      defaultValue = "365",
      description = "Validity of new certificates, and of a new CA (default: ${DEFAULT-VALUE}).")
  int days;

  @Spec CommandSpec spec;

  private final PrintStream out;

  CertsCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (nodes < 0 || nodes > 100_000 || days < 1 || days > 36_500) {
      throw new ParameterException(
          spec.commandLine(), "--nodes must be in [0, 100000], --days in [1, 36500]");
    }
    if (nodes == 0 && clients.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "nothing to issue: --nodes or --client");
    }
    List<CertificateIdentity.Client> wanted = new ArrayList<>();
    try {
      for (String c : clients) {
        wanted.add(client(c));
      }
      new CertificateIdentity.Node(cluster, 0); // checks the cluster id
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    Duration validity = Duration.ofDays(days);
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir, cluster, validity);
    out.println(
        "CA: "
            + dir.resolve(CertificateAuthority.FILE_CA)
            + " (key: "
            + CertificateAuthority.FILE_CA_KEY
            + ")");
    for (int id = 1; id <= nodes; id++) {
      TlsFiles f = ca.issueNode(dir, cluster, id, validity);
      out.println("node " + id + ": " + f.certificateChain() + ", " + f.privateKey());
    }
    for (CertificateIdentity.Client c : wanted) {
      TlsFiles f = ca.issue(dir, "client-" + c.name(), c, validity);
      out.println(
          "client "
              + c.name()
              + " "
              + c.roles()
              + ": "
              + f.certificateChain()
              + ", "
              + f.privateKey());
    }
    return 0;
  }

  private CertificateIdentity.Client client(String spec) {
    int eq = spec.indexOf('=');
    if (eq <= 0 || eq == spec.length() - 1) {
      throw new IllegalArgumentException("--client takes NAME=ROLES, e.g. app=read,write: " + spec);
    }
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String r : spec.substring(eq + 1).split(",")) {
      try {
        roles.add(Role.valueOf(r.trim().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown role '" + r + "' (read, write, admin)");
      }
    }
    return new CertificateIdentity.Client(cluster, spec.substring(0, eq), roles);
  }
}
