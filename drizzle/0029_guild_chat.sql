CREATE TABLE "guild"."chat_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"guild_id" uuid NOT NULL,
	"author_avatar_id" text NOT NULL,
	"author_name" text NOT NULL,
	"text" text,
	"sent_at" timestamp with time zone NOT NULL,
	"deleted_by_avatar_id" text,
	"deleted_by_name" text,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "chat_messages_guild_idx" ON "guild"."chat_messages" USING btree ("guild_id","seq");--> statement-breakpoint
CREATE INDEX "chat_messages_author_idx" ON "guild"."chat_messages" USING btree ("author_avatar_id","sent_at");--> statement-breakpoint
CREATE INDEX "chat_messages_sent_idx" ON "guild"."chat_messages" USING btree ("sent_at");