import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { CalendarEvent } from "../../api/types.ts";
import { useCalendarEvents, useCreateEvent, useDeleteEvent } from "../../api/use-personal.ts";
import { Alert } from "../../components/Alert/Alert.tsx";
import { Button } from "../../components/Button/Button.tsx";
import { CheckboxField } from "../../components/Form/CheckboxField.tsx";
import { TextField } from "../../components/Form/TextField.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import { classNames } from "../../lib/class-names.ts";
import styles from "./CalendarPage.module.css";
import { addDays, eventsOnDay, formatClock, localDate, startOfWeek } from "./week.ts";

function NewEventForm({ defaultDate }: { defaultDate: string }) {
  const create = useCreateEvent();
  const [title, setTitle] = useState("");
  const [date, setDate] = useState(defaultDate);
  const [allDay, setAllDay] = useState(false);
  const [start, setStart] = useState("09:00");
  const [end, setEnd] = useState("10:00");
  const [location, setLocation] = useState("");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!title.trim() || !date) return;
    // The time inputs are the browser's local time; the API takes ISO times with an offset (UTC here).
    const times = allDay
      ? { starts_at: date }
      : { starts_at: new Date(`${date}T${start}`).toISOString(), ...(end ? { ends_at: new Date(`${date}T${end}`).toISOString() } : {}) };
    create.mutate({ title: title.trim(), all_day: allDay, location: location.trim() || null, ...times }, { onSuccess: () => setTitle("") });
  }

  return (
    <>
      <form className={styles.form} onSubmit={submit} aria-label="New event">
        <TextField label="Event" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={500} required fieldClassName={styles.grow} />
        <TextField label="Date" type="date" value={date} onChange={(event) => setDate(event.target.value)} required />
        {!allDay && (
          <>
            <TextField label="Starts" type="time" value={start} onChange={(event) => setStart(event.target.value)} required />
            <TextField label="Ends" type="time" value={end} onChange={(event) => setEnd(event.target.value)} />
          </>
        )}
        <TextField label="Location" value={location} onChange={(event) => setLocation(event.target.value)} maxLength={500} />
        <CheckboxField label="All day" checked={allDay} onChange={(event) => setAllDay(event.target.checked)} />
        <Button type="submit" variant="primary" busy={create.isPending} disabled={!title.trim() || !date}>
          Add event
        </Button>
      </form>
      {create.isError && <Alert className={styles.alert}>{errorMessage(create.error)}</Alert>}
    </>
  );
}

function EventItem({ event }: { event: CalendarEvent }) {
  const remove = useDeleteEvent();
  return (
    <li className={classNames(styles.event, event.all_day && styles.allDay)}>
      <span className={styles.eventTitle}>{event.title}</span>
      <span className={styles.eventMeta}>{event.all_day ? "All day" : `${formatClock(event.starts_at)}–${formatClock(event.ends_at)}`}</span>
      {event.location && <span className={styles.eventMeta}>{event.location}</span>}
      <Button
        size="small"
        variant="ghost"
        className={styles.remove}
        busy={remove.isPending}
        onClick={() => remove.mutate(event.id)}
        aria-label={`Delete ${event.title}`}
      >
        Delete
      </Button>
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
    </li>
  );
}

/** A week of the calendar (Monday first, the browser's time zone), with a form to add an event. */
export function CalendarPage() {
  const [weekStart, setWeekStart] = useState(() => startOfWeek(new Date()));
  const weekEnd = addDays(weekStart, 7);
  const events = useCalendarEvents(weekStart.toISOString(), weekEnd.toISOString());
  const days = Array.from({ length: 7 }, (_, index) => addDays(weekStart, index));
  const today = localDate(new Date());
  const range = `${weekStart.toLocaleDateString(undefined, { day: "numeric", month: "short" })} – ${addDays(weekEnd, -1).toLocaleDateString(undefined, {
    day: "numeric",
    month: "short",
    year: "numeric",
  })}`;

  return (
    <div className={styles.page}>
      <PageHeader
        title="Calendar"
        description="Your events. Calendar apps can subscribe to /api/calendar.ics?token=<your token> (anyone with that link can use your token)."
      />
      <Panel title="New event" className={styles.panel}>
        <NewEventForm defaultDate={today} />
      </Panel>
      <div className={styles.toolbar}>
        <Button size="small" onClick={() => setWeekStart(addDays(weekStart, -7))} aria-label="Previous week">
          ‹ Previous
        </Button>
        <Button size="small" onClick={() => setWeekStart(startOfWeek(new Date()))}>
          This week
        </Button>
        <Button size="small" onClick={() => setWeekStart(addDays(weekStart, 7))} aria-label="Next week">
          Next ›
        </Button>
        <h2 className={styles.range}>{range}</h2>
      </div>
      {events.isPending && <Loading label="Loading events…" />}
      {events.isError && <Alert>{errorMessage(events.error)}</Alert>}
      {events.isSuccess && (
        <ol className={styles.week} aria-label="Week">
          {days.map((day) => {
            const date = localDate(day);
            const onDay = eventsOnDay(events.data, day);
            const label = day.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short" });
            return (
              <li key={date} className={classNames(styles.day, date === today && styles.today)} aria-label={label}>
                <p className={styles.dayName}>{label}</p>
                {onDay.length > 0 && (
                  <ul className={styles.events}>
                    {onDay.map((event) => (
                      <EventItem key={event.id} event={event} />
                    ))}
                  </ul>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
