import type { Clock } from '../../infra/clock/port.js';
import type {
  CitationCount,
  CitedResource,
  QuestionFilter,
  QuestionLog,
  QuestionPage,
  RepeatedQuestion,
} from '../../infra/question-log/port.js';
import { frequentWords, type TopicCount } from './question-topics.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What recording needs of a chat's request and answer (chat.ts's types, not imported: services.ts imports this file). */
interface AskedQuestion {
  question: string;
  siteId?: number;
}
interface ChatAnswer {
  sources: readonly CitedResource[];
}

interface WarnLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * The questions patrons asked the chatbot, kept CHATBOT_QUESTION_RETENTION_DAYS. Reads never
 * reach past the retention, so a question is not served after its time even before the
 * retention sweep (workers/chatbot/question-retention.ts) has deleted it.
 */
export class PatronQuestions {
  private readonly log: QuestionLog;
  private readonly clock: Clock;
  private readonly retentionDays: number;
  private readonly logger: WarnLogger;
  private unrecorded = 0;
  /** The log refuses to record (since the first refusal of this run). */
  private refusing = false;

  constructor({
    log,
    clock,
    retentionDays,
    logger,
  }: {
    log: QuestionLog;
    clock: Clock;
    retentionDays: number;
    logger: WarnLogger;
  }) {
    this.log = log;
    this.clock = clock;
    this.retentionDays = retentionDays;
    this.logger = logger;
  }

  /** The oldest moment a kept question may have been asked. */
  cutoff(): Date {
    return new Date(this.clock.now().getTime() - this.retentionDays * DAY_MS);
  }

  /**
   * Records a chat's question and what it cited, and hands the answer back. A failure to record
   * (a full disk) is counted (/health) and logged once per run of failures, and the answer still
   * goes out: the patron is not refused for the librarians' report (nor when QUESTION_LOG_URL's
   * database is away). Recording resumes by itself.
   */
  async recorded<A extends ChatAnswer>(params: AskedQuestion, response: A): Promise<A> {
    if (this.retentionDays === 0) return response;
    try {
      await this.log.record({
        question: params.question,
        askedAt: this.clock.now(),
        siteId: params.siteId ?? null,
        answered: response.sources.length > 0,
        sources: response.sources.map((s) => ({
          resource_type: s.resource_type,
          resource_id: s.resource_id,
          title: s.title,
          url: s.url,
        })),
      });
    } catch (error) {
      this.unrecorded++;
      if (!this.refusing)
        this.logger.warn({ err: error }, 'chatbot questions cannot be recorded: answered unrecorded meanwhile');
      this.refusing = true;
      return response;
    }
    if (this.refusing) this.logger.info({ unrecorded: this.unrecorded }, 'chatbot questions are recorded again');
    this.refusing = false;
    return response;
  }

  /** Questions answered but not recorded (the log refused them) since the start. */
  get notRecorded(): number {
    return this.unrecorded;
  }

  /** Deletes the questions past the retention; answers how many went. */
  sweep(): Promise<number> {
    return this.log.deleteAskedBefore(this.firstKept());
  }

  /** A question asked at the cutoff itself has had its days (with 0 days: one asked this very moment). */
  private firstKept(): Date {
    return new Date(this.cutoff().getTime() + 1);
  }

  private within(filter: QuestionFilter): QuestionFilter {
    const cutoff = this.firstKept();
    const since = filter.since && filter.since > cutoff ? filter.since : cutoff;
    return { ...filter, since };
  }

  list(filter: QuestionFilter, skip: number, limit: number): Promise<QuestionPage> {
    return this.log.list(this.within(filter), skip, limit);
  }

  async summary(filter: QuestionFilter, limit: number): Promise<QuestionSummary> {
    const kept = this.within(filter);
    // Side by side: with a database (QUESTION_LOG_URL) each is a query of its own.
    const [total, answered, topics, mostCited, unansweredMostAsked] = await Promise.all([
      this.log.count(kept),
      this.log.count({ ...kept, answered: true }),
      frequentWords(this.log.texts(kept), limit),
      this.log.mostCited(kept, limit),
      this.log.mostAskedUnanswered(kept, limit),
    ]);
    return {
      questions: total,
      answered,
      unanswered: total - answered,
      topics,
      most_cited: mostCited,
      unanswered_most_asked: unansweredMostAsked,
    };
  }
}

export interface QuestionSummary {
  questions: number;
  answered: number;
  unanswered: number;
  topics: TopicCount[];
  most_cited: CitationCount[];
  unanswered_most_asked: RepeatedQuestion[];
}
