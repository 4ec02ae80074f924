import m0000 from "./0000_init.sql";
import m0001 from "./0001_usage_buffer.sql";
import m0002 from "./0002_history_archive.sql";
import m0003 from "./0003_history_search.sql";
import m0004 from "./0004_outbox.sql";
import m0005 from "./0005_history_search_on_read.sql";
import journal from "./meta/_journal.json";

export default {
  journal,
  migrations: {
    m0000,
    m0001,
    m0002,
    m0003,
    m0004,
    m0005,
  },
};
