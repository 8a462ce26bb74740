package io.frsm.server.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * frsm-bom has no parent (so it pins nothing but frsm's artifacts), so nothing keeps its versions
 * in step with the project's but this test: the BOM's own version and every artifact it lists must
 * be the project's version, it lists the published artifacts, and the one plugin it names
 * (spotless, so the root's {@code spotless:apply} works) is at the parent's version.
 */
class BomTest {
  private static final Path ROOT = Path.of("..");

  @Test
  void theBom_listsThePublishedArtifacts_atTheProjectsVersion() throws Exception {
    String projectVersion = child(parse(ROOT.resolve("pom.xml")).getDocumentElement(), "version");
    Document bom = parse(ROOT.resolve("frsm-bom").resolve("pom.xml"));
    assertEquals(projectVersion, child(bom.getDocumentElement(), "version"), "the BOM's version");
    List<String> listed = new ArrayList<>();
    NodeList deps = bom.getElementsByTagName("dependency");
    for (int i = 0; i < deps.getLength(); i++) {
      Element d = (Element) deps.item(i);
      assertEquals("io.frsm", child(d, "groupId"));
      assertEquals(projectVersion, child(d, "version"), child(d, "artifactId"));
      listed.add(child(d, "artifactId"));
    }
    assertEquals(List.of("frsm-api", "frsm-client", "frsm-server"), listed);

    String spotless =
        child(
            (Element)
                parse(ROOT.resolve("pom.xml"))
                    .getDocumentElement()
                    .getElementsByTagName("properties")
                    .item(0),
            "spotless.plugin.version");
    Element plugin = (Element) bom.getElementsByTagName("plugin").item(0);
    assertEquals("spotless-maven-plugin", child(plugin, "artifactId"));
    assertEquals(spotless, child(plugin, "version"), "the BOM's spotless plugin version");
  }

  private static Document parse(Path pom) throws Exception {
    assertTrue(Files.exists(pom), pom.toAbsolutePath().toString());
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return f.newDocumentBuilder().parse(pom.toFile());
  }

  /** The text of {@code parent}'s direct child element {@code name}. */
  private static String child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e.getTextContent().strip();
      }
    }
    throw new AssertionError("<" + parent.getTagName() + "> has no <" + name + ">");
  }
}
