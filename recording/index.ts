/** Public surface of `recording/`: the record format, the writer and recorder, reading, replay, rescoring and inspection. */
export {
  RECORD_FORMAT,
  RECORD_VERSION,
  RECORD_EXT,
  DEFAULT_MAX_FILE_BYTES,
  packValue,
  unpackValue,
  sha256,
  hashStepOutput,
  hashResetOutput,
  shouldRecord,
  isEpisodeRecord,
  isFileHeader,
} from './format.js';
export type { RecordFileHeader, RecordedStep, RecordSummary, EpisodeRecordV1, RecordValue } from './format.js';
export { RecordWriter } from './writer.js';
export type { RecordWriterOptions } from './writer.js';
export { Recorder, EpisodeTape, RecordEpisode, describeVariant } from './recorder.js';
export type { EpisodeRecorder, RecordStart, RecorderOptions, TapedOutput } from './recorder.js';
export { episodeRecordSchema, episodeRecordProblem } from './schema.js';
export { listRecordFiles, readRecordFile, readRecords, decodeRecordBytes } from './reader.js';
export type { LoadedRecord, ReadResult } from './reader.js';
export { replayRecord, replayRecords, rebuildEpisode, envConfigFor, diffValues, formatDivergence } from './replay.js';
export type { FieldDiff, Divergence, EpisodeReplay, ReplaySummary } from './replay.js';
export { rescore, rescoreRecord, formatRescore } from './rescore.js';
export type { RescoreFigure, RescoreReport } from './rescore.js';
export { inspectRecord, formatEpisodeView } from './inspect.js';
export { startViewer } from './view/server.js';
export type { RunningViewer, EpisodeDetail } from './view/server.js';
export type { EpisodeView, TurnView, CallView, ComponentView, UnmappedArgument, ToolSchemaView, ToolListView } from './inspect.js';
