/*
 * mqconsole's Spark Connect relation plugin: the snapshot's small-file operations (the
 * manifest, the commit marker, the listing, the publishing...) done through Hadoop's
 * FileSystem on the Connect server's driver, so that over Spark Connect a snapshot can be on
 * any URI the server's Hadoop writes (hdfs:, s3a:, abfss:, gs:, viewfs:...).
 *
 * The client (mqconsole/audit/serverstore.py, ServerStore) sends a relation extension: a
 * google.protobuf.Any of the type URL TYPE_URL holding a StringValue, the operations' JSON
 * ([[name, {args}], ...], bytes as {"$bytes": base64}). The plugin does them in order, as
 * mqconsole/audit/store.py's HadoopStore does them, and answers with one row (status, value)
 * each, the value JSON, as serverstore.run_ops does: ok, taken (the name a snapshot is
 * published under is taken), exists (a create-exclusive refused), oserror ([errno, text,
 * filename]) or unknown (an operation this plugin does not know); the first that is not ok
 * ends the list.
 *
 * Build it with `mqconsole audit connect-plugin OUT.jar`; the server takes it with
 * `--jars OUT.jar --conf spark.connect.extensions.relation.classes=mqconsole.audit.connect.StorePlugin`.
 */
package mqconsole.audit.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connect.planner.SparkConnectPlanner;
import org.apache.spark.sql.connect.plugin.RelationPlugin;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.sparkproject.connect.protobuf.Any;
import org.sparkproject.connect.protobuf.InvalidProtocolBufferException;
import org.sparkproject.connect.protobuf.StringValue;

public final class StorePlugin implements RelationPlugin {
  /** The type URL of mqconsole's store operations (serverstore.py's PLUGIN_TYPE_URL). */
  public static final String TYPE_URL = "type.googleapis.com/mqconsole.audit.StoreOps";

  static final StructType SCHEMA = new StructType()
      .add("status", DataTypes.StringType, false)
      .add("value", DataTypes.StringType, false);
  static final ObjectMapper JSON = new ObjectMapper();
  static final FsPermission FILES = FsPermission.valueOf("-rw-------");
  static final FsPermission FOLDERS = FsPermission.valueOf("drwx------");

  @Override
  public Optional<LogicalPlan> transform(byte[] relation, SparkConnectPlanner planner) {
    Any any;
    try {
      any = Any.parseFrom(relation);
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
    if (!TYPE_URL.equals(any.getTypeUrl())) {
      return Optional.empty(); // another plugin's
    }
    String text;
    try {
      text = StringValue.parseFrom(any.getValue()).getValue();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("mqconsole's store operations cannot be read: "
          + e.getMessage(), e);
    }
    SparkSession session = planner.session();
    // the Hadoop settings Spark's own readers and writers use in this session
    Configuration conf = session.sessionState().newHadoopConf();
    List<Row> rows = new ArrayList<>();
    for (String[] done : run(text, conf)) {
      rows.add(RowFactory.create(done[0], done[1]));
    }
    return Optional.of(session.createDataFrame(rows, SCHEMA).logicalPlan());
  }

  /** The operations of {@code text} done in order: (status, value as JSON) each, the first
   * that is not ok the last. */
  public static List<String[]> run(String text, Configuration conf) {
    JsonNode ops;
    try {
      ops = JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("mqconsole's store operations are not JSON: "
          + e.getMessage(), e);
    }
    Store store = new Store(conf);
    List<String[]> out = new ArrayList<>();
    for (JsonNode op : ops) {
      String[] done = store.one(op.path(0).asText(), op.path(1));
      out.add(done);
      if (!"ok".equals(done[0])) {
        break;
      }
    }
    return out;
  }

  /** publish's target exists (serverstore.py raises OutTaken). */
  static final class Taken extends IOException {
    Taken(String target) {
      super(target);
    }
  }

  /** HadoopStore's operations, on the server's driver. */
  static final class Store {
    final Configuration conf;

    Store(Configuration conf) {
      this.conf = conf;
    }

    String[] one(String name, JsonNode args) {
      String where = args.path("uri").asText(args.path("out").asText(""));
      try {
        Object value;
        switch (name) {
          case "read_text": value = readText(where); break;
          case "exists": value = fs(path(where)).exists(path(where)); break;
          case "is_dir": value = isDir(where); break;
          case "write_new":
            create(where, args.path("text").asText().getBytes(StandardCharsets.UTF_8));
            value = null;
            break;
          case "write_bytes": value = writeBytes(where, bytes(args.path("data"))); break;
          case "mkdirs": fs(path(where)).mkdirs(path(where), FOLDERS); value = null; break;
          case "remove": value = remove(where); break;
          case "children": value = children(where); break;
          case "sizes": value = sizes(where); break;
          case "age": value = age(where); break;
          case "make_private": makePrivate(where); value = null; break;
          case "publish":
            publish(args.path("staged").asText(), where, args.path("replace").asBoolean());
            value = null;
            break;
          default:
            return new String[] {"unknown", json(name)};
        }
        return new String[] {"ok", json(value)};
      } catch (Taken e) {
        return new String[] {"taken", json(e.getMessage())};
      } catch (Exception e) {
        if (e.getClass().getSimpleName().contains("AlreadyExists")) {
          return new String[] {"exists", json(where)};
        }
        return new String[] {"oserror", json(Arrays.asList(errno(e), text(e), where))};
      }
    }

    static String json(Object value) {
      try {
        return JSON.writeValueAsString(value);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    /** The errno a Python OSError of the same failure carries (EIO when none fits). */
    static int errno(Exception e) {
      String name = e.getClass().getSimpleName();
      String message = String.valueOf(e.getMessage());
      if (e instanceof FileNotFoundException) {
        return 2; // ENOENT
      }
      if (e instanceof AccessDeniedException || name.contains("AccessControl")
          || name.contains("AccessDenied")) {
        return 13; // EACCES
      }
      if (message.contains("No space left on device") || name.contains("QuotaExceeded")) {
        return 28; // ENOSPC
      }
      return 5; // EIO
    }

    static String text(Exception e) {
      String message = e.getMessage();
      if (message == null || message.isBlank()) {
        return e.getClass().getName();
      }
      return message.strip().lines().findFirst().orElse(message);
    }

    static byte[] bytes(JsonNode data) {
      return Base64.getDecoder().decode(data.path("$bytes").asText());
    }

    static Path path(String uri) {
      return new Path(uri);
    }

    FileSystem fs(Path path) throws IOException {
      FileSystem fs = path.getFileSystem(conf);
      if (fs instanceof LocalFileSystem) {
        fs = ((LocalFileSystem) fs).getRawFileSystem(); // no .crc files beside ours
      }
      return fs;
    }

    String readText(String uri) throws IOException {
      Path path = path(uri);
      byte[] data;
      try (InputStream stream = fs(path).open(path)) {
        data = stream.readAllBytes();
      } catch (FileNotFoundException e) {
        return null;
      }
      try {
        return StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(data)).toString();
      } catch (CharacterCodingException e) {
        throw new IOException("not UTF-8 text", e);
      }
    }

    boolean isDir(String uri) throws IOException {
      Path path = path(uri);
      try {
        return fs(path).getFileStatus(path).isDirectory();
      } catch (FileNotFoundException e) {
        return false;
      }
    }

    /** A new file holding {@code data} (FileAlreadyExistsException where one is there),
     * private where the file system has permissions. */
    void create(String uri, byte[] data) throws IOException {
      Path path = path(uri);
      FileSystem fs = fs(path);
      try (FSDataOutputStream out = fs.create(path, false)) {
        out.write(data);
      }
      try {
        fs.setPermission(path, FILES);
      } catch (Exception e) {
        // an object store has no permissions
      }
    }

    Object writeBytes(String uri, byte[] data) throws IOException {
      Path path = path(uri);
      fs(path).mkdirs(path.getParent(), FOLDERS);
      create(uri, data);
      return null;
    }

    Object remove(String uri) {
      try {
        Path path = path(uri);
        fs(path).delete(path, true);
      } catch (Exception e) {
        // nothing there, or nothing to be done: as HadoopStore
      }
      return null;
    }

    /** Python's sorted(): by code point. */
    static final Comparator<String> CODE_POINTS =
        (a, b) -> Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());

    List<String> children(String uri) throws IOException {
      Path path = path(uri);
      List<String> names = new ArrayList<>();
      try {
        for (FileStatus status : fs(path).listStatus(path)) {
          names.add(status.getPath().getName());
        }
      } catch (FileNotFoundException e) {
        return names;
      }
      names.sort(CODE_POINTS);
      return names;
    }

    Map<String, Long> sizes(String uri) throws IOException {
      Path root = path(uri);
      Map<String, Long> out = new LinkedHashMap<>();
      RemoteIterator<LocatedFileStatus> found;
      try {
        found = fs(root).listFiles(root, true);
      } catch (FileNotFoundException e) {
        return out;
      }
      String base = root.toUri().getPath().replaceAll("/+$", "");
      while (found.hasNext()) {
        LocatedFileStatus status = found.next();
        String inner = status.getPath().toUri().getPath();
        if (inner.startsWith(base + "/") && inner.length() > base.length() + 1) {
          out.put(inner.substring(base.length() + 1), status.getLen());
        }
      }
      return out;
    }

    Double age(String uri) throws IOException {
      Path path = path(uri);
      try {
        long changed = fs(path).getFileStatus(path).getModificationTime();
        return (System.currentTimeMillis() - changed) / 1000.0;
      } catch (FileNotFoundException e) {
        return null;
      }
    }

    /** Folders 0700 and files 0600 (where the file system has permissions), .*.crc gone. */
    void makePrivate(String uri) throws IOException {
      Path root = path(uri);
      FileSystem fs = fs(root);
      Deque<Path> pending = new ArrayDeque<>();
      pending.push(root);
      while (!pending.isEmpty()) {
        Path folder = pending.pop();
        try {
          fs.setPermission(folder, FOLDERS);
        } catch (Exception e) {
          // an object store has no permissions
        }
        for (FileStatus status : fs.listStatus(folder)) {
          Path path = status.getPath();
          String name = path.getName();
          if (status.isDirectory()) {
            pending.push(path);
          } else if (name.startsWith(".") && name.endsWith(".crc")) {
            fs.delete(path, false);
          } else {
            try {
              fs.setPermission(path, FILES);
            } catch (Exception e) {
              // an object store has no permissions
            }
          }
        }
      }
    }

    /** The committed folder {@code staged} put at {@code out}: Taken when out exists and
     * not replace; with replace, the old snapshot goes only once the new one is in place. */
    void publish(String staged, String out, boolean replace) throws IOException {
      Path target = path(out);
      Path source = path(staged);
      FileSystem fs = fs(target);
      Path old = null;
      if (replace && fs.exists(target)) {
        String tag = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        old = new Path(target.getParent(), "." + target.getName() + ".old-" + tag);
        rename(source.getParent(), target, old);
      }
      try {
        rename(source.getParent(), source, target);
      } catch (Taken e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        if (old != null) {
          rename(source.getParent(), old, target);
        }
        throw e;
      }
      if (old != null) {
        fs.delete(old, true);
      }
    }

    /** A rename refusing an existing target (FileSystem.rename would move source inside an
     * existing folder instead). */
    void rename(Path where, Path source, Path target) throws IOException {
      FileContext context = FileContext.getFileContext(where.toUri(), conf);
      try {
        context.rename(source, target, Options.Rename.NONE);
      } catch (IOException e) {
        if (e.getClass().getSimpleName().contains("AlreadyExists")) {
          throw new Taken(target.toString());
        }
        throw e;
      }
    }
  }
}
