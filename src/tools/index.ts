import { askUser } from "./ask-user.ts";
import { generateImageTool } from "./generate-image.ts";
import { searchHistory } from "./history-search.ts";
import { forget, recall, remember } from "./memory.ts";
import { ToolRegistry } from "./registry.ts";
import { sendMessage } from "./send-message.ts";
import { showWidget } from "./show-widget.ts";
import { spawn } from "./spawn.ts";
import { cancelTask, listTasks, pauseTask, resumeTask, scheduleTask, updateTask } from "./task-tools.ts";
import { useSkill } from "./use-skill.ts";
import { webFetch } from "./web-fetch.ts";
import { webSearch } from "./web-search.ts";

/** Every tool the bot has, named as in the seeds so prompts written for NanoClaw work. */
export const tools = new ToolRegistry([
  remember,
  recall,
  forget,
  searchHistory,
  scheduleTask,
  listTasks,
  updateTask,
  pauseTask,
  resumeTask,
  cancelTask,
  sendMessage,
  webSearch,
  webFetch,
  generateImageTool,
  useSkill,
  spawn,
  askUser,
  showWidget,
]);
