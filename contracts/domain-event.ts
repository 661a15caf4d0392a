/** A domain event before it is stored: a fact in the past tense with its data. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}
