package io.frsm.server.node;

import io.frsm.server.cli.CliLogging;
import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.FrsmConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;

/**
 * A node process for the multi-process fault suite: {@code frsm server --config <yaml>} as far as
 * the node goes (same configuration file, same INFO logging), with its peer links behind {@link
 * PeerLinkFaults} and its wall clock behind {@link WallClock}, both driven by a {@link
 * FaultControlFile}. Lives in the test sources: no production entry point can build a node with
 * faults. Runs until killed ({@code kill -9} is what the suite does).
 *
 * <p>Arguments: {@code <config.yaml> <fault-control-file>}.
 */
public final class FaultyNodeMain {
  private FaultyNodeMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: FaultyNodeMain <config.yaml> <fault-control-file>");
      System.exit(2);
    }
    Map<String, String> environment = new HashMap<>(System.getenv());
    CliLogging.configure(CliLogging.defaults(Level.INFO), environment);
    environment.remove(CliLogging.LEVEL_VARIABLE);
    FrsmConfig config = ConfigLoader.load(Path.of(args[0]), environment);
    PeerLinkFaults faults = new PeerLinkFaults();
    FaultControlFile control = new FaultControlFile(Path.of(args[1]), faults);
    control.pollOnce(); // the faults the node starts with
    control.startPolling();
    FrsmNode node =
        FrsmNode.builder()
            .config(config)
            .peerLinkFaults(faults)
            .onFatalError(
                e -> {
                  System.out.println("frsm node " + config.nodeId() + " fatal error: " + e);
                  Runtime.getRuntime().halt(70);
                })
            .build();
    node.start();
    System.out.println(
        "frsm node "
            + config.nodeId()
            + " started with a fault control file: peer "
            + node.peerAddress()
            + ", client "
            + node.clientAddress());
    new CountDownLatch(1).await(); // until killed
  }
}
