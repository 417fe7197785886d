CREATE TABLE "platform"."dead_letters" (
	"consumer" text NOT NULL,
	"event_id" uuid NOT NULL,
	"producer" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb,
	"reason" text NOT NULL,
	"parked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "dead_letters_consumer_event_id_pk" PRIMARY KEY("consumer","event_id")
);
