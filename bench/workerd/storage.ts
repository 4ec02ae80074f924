import { countSql, type LiveObject } from "./tally.ts";

/**
 * Counts what an object does with its storage, by replacing methods on its own `ctx.storage` and `ctx.storage.sql`
 * (the same objects every time they are read, so drizzle and the stores use the replacements): every SQL statement
 * with the rows its cursor read and wrote, the key-value methods' keys (billed as rows), and alarms set and deleted.
 */
export function instrumentStorage(storage: DurableObjectStorage, live: LiveObject): void {
  const { tally } = live;
  const sql = storage.sql;
  const exec = sql.exec.bind(sql);
  sql.exec = <T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]) => {
    const cursor = exec<T>(query, ...bindings);
    countSql(tally, query, cursor);
    return cursor;
  };

  const setAlarm = storage.setAlarm.bind(storage);
  storage.setAlarm = (time, options) => {
    tally.alarmsSet++;
    tally.alarmAt = typeof time === "number" ? time : time.getTime();
    return setAlarm(time, options);
  };
  const deleteAlarm = storage.deleteAlarm.bind(storage);
  storage.deleteAlarm = (options) => {
    tally.alarmsDeleted++;
    tally.alarmAt = undefined;
    return deleteAlarm(options);
  };

  // The key-value methods are overloaded (one key, or many): replaced untyped, counting the keys of each call.
  replace(storage, "get", (args) => {
    tally.storageKeysRead += Array.isArray(args[0]) ? args[0].length : 1;
  });
  replace(storage, "put", (args) => {
    tally.storageKeysWritten += typeof args[0] === "string" ? 1 : Object.keys(args[0] ?? {}).length;
  });
  replace(storage, "delete", (args) => {
    tally.storageKeysWritten += Array.isArray(args[0]) ? args[0].length : 1;
  });
  replace(storage, "deleteAll", () => {
    tally.storageKeysWritten++;
  });
  replace(
    storage,
    "list",
    () => undefined,
    (result) => {
      if (result instanceof Map) tally.storageKeysRead += Math.max(1, result.size);
    },
  );
}

function replace(
  target: object,
  name: string,
  before: (args: unknown[]) => void,
  after?: (result: unknown) => void,
): void {
  const original: unknown = Reflect.get(target, name);
  if (typeof original !== "function") return;
  Reflect.set(target, name, (...args: unknown[]) => {
    before(args);
    const result: unknown = Reflect.apply(original, target, args);
    if (after && result instanceof Promise) {
      return result.then((value: unknown) => {
        after(value);
        return value;
      });
    }
    return result;
  });
}
